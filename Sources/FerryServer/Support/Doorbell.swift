import NIOConcurrencyHelpers

/// Wakes a background loop (the visit recorder, the webhook dispatcher) that otherwise sleeps
/// until a deadline. A ring while nobody waits is kept for the next wait, so a wake-up that
/// comes just before the loop starts waiting, such as a graceful shutdown's, is never lost.
final class Doorbell: Sendable {
    private struct State {
        var waiter: CheckedContinuation<Void, Never>?
        var rung = false
    }

    private let state = NIOLockedValueBox(State())

    func ring() {
        state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }?.resume()
    }

    /// Returns at a ring (one kept from before counts) or at `deadline`, whichever is first.
    func wait(until deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.waitForRing(); return true }
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous); return false }
            let rang = await group.next() ?? true
            group.cancelAll()
            // The deadline came first: release the ring waiter, which finds this ring kept if
            // it has not started waiting yet.
            if !rang { ring() }
        }
    }

    private func waitForRing() async {
        await withCheckedContinuation { continuation in
            let ringing = state.withLockedValue { state -> Bool in
                if state.rung {
                    state.rung = false
                    return true
                }
                state.waiter = continuation
                return false
            }
            if ringing { continuation.resume() }
        }
    }
}
