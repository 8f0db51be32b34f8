import NIOConcurrencyHelpers

/// Runs a store call with a deadline, so a database that does not answer (down, or out of
/// connections) gives an error instead of a request that hangs. Past the deadline the call is
/// cancelled and left to finish on its own: a connection pool waiting for a server that is away
/// may not notice the cancellation until the server is back, and a call on a connection that
/// vanished mid-query may never finish at all.
public func withTimeout<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws(StoreError) -> T {
    let result: Result<T, StoreError> = await withCheckedContinuation { continuation in
        let pending = NIOLockedValueBox<CheckedContinuation<Result<T, StoreError>, Never>?>(continuation)
        let finish: @Sendable (Result<T, StoreError>) -> Void = { result in
            pending.withLockedValue { waiting -> CheckedContinuation<Result<T, StoreError>, Never>? in
                defer { waiting = nil }
                return waiting
            }?.resume(returning: result)
        }
        let work = Task {
            do {
                finish(.success(try await body()))
            } catch let error as StoreError {
                finish(.failure(error))
            } catch {
                finish(.failure(.unavailable("\(error)")))
            }
        }
        Task {
            try? await Task.sleep(for: limit)
            finish(.failure(.unavailable("the database did not answer within \(limit)")))
            work.cancel()
        }
    }
    return try result.get()
}
