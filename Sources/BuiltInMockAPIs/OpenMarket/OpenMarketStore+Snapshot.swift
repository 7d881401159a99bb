import Foundation
import MockCore

/// The Open Market state as a value that survives a restart: products in order, counters,
/// the generator, and the images clients uploaded (fixture images come from the fixtures).
public struct OpenMarketSnapshot: Codable, Sendable, Equatable {
    /// An image a client uploaded.
    public struct Upload: Codable, Sendable, Equatable {
        /// The file's bytes.
        public var data: Data
        /// The `Content-Type` it is served with.
        public var contentType: String
        /// Its `Last-Modified`.
        public var lastModified: Date
    }

    /// Every product, in list order.
    public var products: [OpenMarketProduct]
    /// The id the next created product gets.
    public var nextProductID: Int
    /// The id the next uploaded image gets.
    public var nextImageID: Int
    /// The store's generator, where it stands.
    public var random: SeededRandom
    /// Uploaded images by key (`origin/u138-1.png`).
    public var uploads: [String: Upload]
}

extension OpenMarketStore {
    func snapshot(fixtureImages: Set<String>) -> OpenMarketSnapshot {
        withState { state in
            OpenMarketSnapshot(
                products: state.order.compactMap { state.entries[$0]?.product },
                nextProductID: state.nextProductID, nextImageID: state.nextImageID, random: state.random,
                uploads: state.images.filter { !fixtureImages.contains($0.key) }.mapValues {
                    OpenMarketSnapshot.Upload(data: $0.data, contentType: $0.contentType, lastModified: $0.lastModified)
                })
        }
    }

    func restore(_ snapshot: OpenMarketSnapshot, fixtureImages: [String: StaticAsset]) {
        let wire = self.wire
        withState { state in
            state.entries = Dictionary(uniqueKeysWithValues: snapshot.products.map {
                ($0.id, Entry(product: $0, wire: wire))
            })
            state.order = snapshot.products.map(\.id)
            state.nextProductID = snapshot.nextProductID
            state.nextImageID = snapshot.nextImageID
            state.random = snapshot.random
            state.images = fixtureImages
            for (key, upload) in snapshot.uploads {
                state.images[key] = StaticAsset(name: String(key.split(separator: "/").last ?? ""), data: upload.data,
                                                contentType: upload.contentType, lastModified: upload.lastModified)
            }
        }
    }
}

extension OpenMarketSimulator {
    /// The store's products, counters, generator and uploads; fixture images are not copied.
    public func snapshot() -> OpenMarketSnapshot { store.snapshot(fixtureImages: Set(fixtureImages.keys)) }
    /// Puts back what `snapshot()` saved.
    public func restore(_ snapshot: OpenMarketSnapshot) { store.restore(snapshot, fixtureImages: fixtureImages) }
}
