// ContractTests: provider protocols and suites arrive with the contract issue.
