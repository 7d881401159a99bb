/// The APIs every engine serves unless its configuration says otherwise: the one list
/// that names them.
public enum BuiltInAPIs {
    public static let all: [any MockAPI] = [RestaurantAPI(), OpenMarketAPI()]
}
