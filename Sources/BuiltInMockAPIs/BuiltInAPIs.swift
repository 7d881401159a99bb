import MockCore

/// The APIs every engine serves unless its configuration says otherwise: the one list
/// that names them.
public enum BuiltInAPIs {
    /// Restaurant, then Open Market: the default of `EngineConfiguration.apis`.
    public static let all: [any MockAPI] = [RestaurantAPI(), OpenMarketAPI()]
}
