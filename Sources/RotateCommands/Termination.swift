#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGTERM and SIGINT set a flag instead of killing the process, so the sidecar saves its state
/// before it exits.
enum Termination {
    nonisolated(unsafe) static var flag: sig_atomic_t = 0

    static var requested: Bool { flag != 0 }

    static func install() {
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = { _ in Termination.flag = 1 }
        #else
        action.__sigaction_u.__sa_handler = { _ in Termination.flag = 1 }
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: a blocked read returns EINTR
        sigaction(SIGTERM, &action, nil)
        sigaction(SIGINT, &action, nil)
        // A parent may have started us with these blocked (the mask is inherited): unblock them.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
