/*
 * guard.cpp (blinkc, host only): a watchdog for native tile code.
 *
 * A sketch's loop() may never return (`while (1);`, as Move38's
 * SerialNumberPrinter does); the emulator must then stop with an error
 * instead of hanging. Tile code is called through blinkc_guard_call():
 *
 *   - the call is counted and marked as running (two atomic stores, no
 *     system call: the hot path of a pass stays a few nanoseconds longer);
 *   - a watchdog thread wakes every tick and looks: if the same call is
 *     still running and the calling thread has spent more CPU time in it than
 *     the budget, or a SIGINT came since it began (and it has run a tick),
 *     it sends that thread KILL_SIGNAL, whose handler siglongjmp()s back into
 *     blinkc_guard_call, which returns GUARD_TIMEOUT or GUARD_INTERRUPTED.
 *
 * The tile's state is then torn (its loop() stopped half way): the caller
 * must treat the tile as dead. The budget is CPU time, so a loaded machine
 * does not make a working tile look stuck; a true infinite loop is always
 * caught, within a tick of the budget.
 *
 * SIGINT: Python only notices Ctrl-C between bytecodes, never inside a
 * native call. blinkc_guard_prepare() puts a handler in front of Python's
 * own (which it still calls) that counts SIGINTs; the C++ world core reads
 * the count between events and returns to Python, and the watchdog uses it
 * to stop a tile call that is stuck. Between blinkc_guard_defer(1) and (0)
 * a SIGINT is held back from Python and handed over at the (0): Python's
 * KeyboardInterrupt then comes where the caller chose (after the core's
 * state is copied out), not in the middle of a callback (where ctypes would
 * print it and go on: a lost Ctrl-C). SIGTERM the same, while Python has a
 * handler for it (blinkc's runner stops a batch on it as on Ctrl-C).
 *
 * One process-wide instance: Python loads this library once
 * (blinkc/native/guard.py) and the world core gets its entry points.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <atomic>

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {

typedef void (*entry_fn)(void);
typedef uint32_t (*u32_fn)(void);

enum { GUARD_OK = 0, GUARD_TIMEOUT = 1, GUARD_INTERRUPTED = 2 };
enum { NO_THREAD, RUNNING, PARKED };

/* A signal nothing else in a Python process uses. */
int kill_signal() {
#ifdef SIGRTMAX
    return SIGRTMAX - 3;
#else
    return SIGUSR2;
#endif
}

const int64_t NS = 1000000000LL;
const int PARK_AFTER_TICKS = 40; /* idle ticks before the watchdog thread sleeps */

/* --- shared between the caller, the watchdog thread and the handlers --- */
std::atomic<int> busy{0};         /* 1 while a guarded call runs */
std::atomic<uint64_t> calls{0};   /* guarded calls begun */
std::atomic<uint64_t> target{0};  /* the call the watchdog means to stop */
std::atomic<int64_t> budget_ns{2 * NS};
std::atomic<int> state{NO_THREAD};
pthread_t owner;                   /* the thread of the running call (set before `calls`) */
int call_interrupts = 0;           /* `interrupts` when the running call began */
sigjmp_buf env;
volatile sig_atomic_t armed = 0;   /* the owner may be jumped out of its call */
volatile sig_atomic_t why = 0;     /* GUARD_TIMEOUT or GUARD_INTERRUPTED */
volatile int interrupts = 0;       /* SIGINTs (SIGTERMs) seen (read by the world core) */
std::atomic<int> deferring{0};     /* blinkc_guard_defer depth */
std::atomic<int> held{0};          /* bit k: a SIGNALS[k] not yet handed to Python */
int last_stop = 0;                 /* how the last guarded call ended (GUARD_*) */
std::atomic<int64_t> ran_ns{0};    /* CPU time the last stopped call had used */
/* The signals held back and counted, and the handler ours calls on for each (Python's). */
const int SIGNALS[2] = {SIGINT, SIGTERM};
struct sigaction python_handler[2];
pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

int64_t tick_ns() {
    int64_t t = budget_ns.load() / 8;
    if (t == 0) return 50000000; /* no budget: watching for SIGINT only */
    const int64_t lo = 5000000, hi = 50000000; /* 5..50 ms */
    return t < lo ? lo : t > hi ? hi : t;
}

int64_t cpu_ns(clockid_t clock) {
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0) return 0;
    return ts.tv_sec * NS + ts.tv_nsec;
}

/* --- handlers ---------------------------------------------------------- */
void on_kill(int) {
    /* Only the call it was meant for: one that ended meanwhile is not jumped out of. */
    if (armed && pthread_equal(pthread_self(), owner) && calls.load() == target.load()) {
        armed = 0;
        siglongjmp(env, 1);
    }
}

int signal_index(int sig) { return sig == SIGTERM ? 1 : 0; }

void to_python(int sig, siginfo_t *info, void *context) {
    const struct sigaction &python = python_handler[signal_index(sig)];
    if (python.sa_flags & SA_SIGINFO) {
        if (python.sa_sigaction) python.sa_sigaction(sig, info, context);
    } else if (python.sa_handler != SIG_DFL && python.sa_handler != SIG_IGN) {
        python.sa_handler(sig);
    }
}

void on_signal(int sig, siginfo_t *info, void *context) {
    int saved = errno;
    int bit = 1 << signal_index(sig);
    __atomic_add_fetch(&interrupts, 1, __ATOMIC_SEQ_CST);
    if (deferring.load() > 0) {
        held.fetch_or(bit);
        /* Unless the deferral ended meanwhile (in another thread) and nobody took it. */
        if (deferring.load() > 0 || !(held.fetch_and(~bit) & bit)) {
            errno = saved;
            return;
        }
    }
    to_python(sig, info, context);
    errno = saved;
}

/* Put on_signal in front of whatever function handles SIGINT and SIGTERM now (Python's,
 * normally). Nothing happens to one that is ignored or has its default action, or is ours
 * already. */
void chain_signals() {
    for (int k = 0; k < 2; ++k) {
        struct sigaction now;
        if (sigaction(SIGNALS[k], nullptr, &now) != 0) continue;
        bool info = now.sa_flags & SA_SIGINFO;
        if (info && now.sa_sigaction == on_signal) continue;
        if (info ? now.sa_sigaction == nullptr
                 : (now.sa_handler == SIG_DFL || now.sa_handler == SIG_IGN))
            continue;
        python_handler[k] = now; /* on_signal is not installed yet: nothing reads it meanwhile */
        struct sigaction ours = now;
        ours.sa_sigaction = on_signal;
        ours.sa_flags = (now.sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
        sigaction(SIGNALS[k], &ours, nullptr);
    }
}

/* --- the watchdog thread ----------------------------------------------- */
void sleep_ns(int64_t ns) {
    struct timespec ts = {(time_t)(ns / NS), (long)(ns % NS)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Sleep until a guarded call wakes us (unless one began since `seen`). */
void park(uint64_t seen) {
    pthread_mutex_lock(&mu);
    state.store(PARKED);
    if (calls.load() != seen) {
        state.store(RUNNING);
    } else {
        while (state.load() == PARKED) pthread_cond_wait(&cv, &mu);
    }
    pthread_mutex_unlock(&mu);
}

void *watch(void *) {
    uint64_t seen = 0;
    bool timing = false;
    clockid_t clock = CLOCK_THREAD_CPUTIME_ID;
    int64_t start = 0;
    int idle = 0;
    for (;;) {
        sleep_ns(tick_ns());
        int running = busy.load();
        uint64_t c = calls.load();
        if (c != seen) { /* calls came and went since the last tick */
            seen = c;
            idle = 0;
            timing = false;
            if (running && pthread_getcpuclockid(owner, &clock) == 0) {
                start = cpu_ns(clock);
                timing = true;
            }
            continue;
        }
        if (!running) {
            if (++idle >= PARK_AFTER_TICKS) {
                park(seen);
                idle = 0;
            }
            continue;
        }
        /* The same call has been running since the last tick at least. */
        if (!timing) {
            if (pthread_getcpuclockid(owner, &clock) != 0) continue;
            start = cpu_ns(clock);
            timing = true;
            continue;
        }
        int64_t used = cpu_ns(clock) - start;
        int reason = 0;
        if (interrupts != call_interrupts) {
            reason = GUARD_INTERRUPTED;
        } else if (budget_ns.load() > 0 && used >= budget_ns.load()) {
            reason = GUARD_TIMEOUT;
        }
        if (reason) {
            why = reason;
            target.store(c);
            ran_ns.store(used);
            pthread_kill(owner, kill_signal()); /* again next tick if it is still running */
        }
    }
    return nullptr;
}

void start_or_wake() {
    pthread_mutex_lock(&mu);
    if (state.load() == NO_THREAD) {
        sigset_t all, saved;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &saved); /* the thread inherits it: no signals */
        pthread_t thread;
        if (pthread_create(&thread, nullptr, watch, nullptr) == 0) {
            pthread_detach(thread);
            state.store(RUNNING);
        }
        pthread_sigmask(SIG_SETMASK, &saved, nullptr);
    } else if (state.load() == PARKED) {
        state.store(RUNNING);
        pthread_cond_signal(&cv);
    }
    pthread_mutex_unlock(&mu);
}

void after_fork_in_child() {
    /* Only the forking thread survives: no watchdog thread, no call running. */
    pthread_mutex_init(&mu, nullptr);
    pthread_cond_init(&cv, nullptr);
    state.store(NO_THREAD);
    busy.store(0);
    armed = 0;
}

__attribute__((constructor)) void install() {
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = on_kill;
    sigemptyset(&act.sa_mask);
    act.sa_flags = SA_NODEFER; /* still deliverable after the jump (the mask is not restored) */
    sigaction(kill_signal(), &act, nullptr);
    pthread_atfork(nullptr, nullptr, after_fork_in_child);
}

/* Claim the guard for this call; false when another thread's call holds it. */
inline bool begin() {
    int expected = 0;
    if (!busy.compare_exchange_strong(expected, 1)) return false;
    owner = pthread_self();
    last_stop = 0;
    call_interrupts = interrupts;
    why = 0;
    calls.fetch_add(1);
    if (state.load() != RUNNING) start_or_wake();
    return true;
}

/* After the jump out of a stuck call. */
int landed() {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, kill_signal());
    pthread_sigmask(SIG_UNBLOCK, &s, nullptr);
    int reason = why ? why : GUARD_TIMEOUT;
    last_stop = reason;
    busy.store(0);
    return reason;
}

}  // namespace

/* Run fn() under the watchdog: GUARD_OK, or GUARD_TIMEOUT / GUARD_INTERRUPTED when it
 * was stopped (the tile's state is then torn: never call into that tile again). */
EXPORT int blinkc_guard_call(entry_fn fn) {
    if (!begin()) {
        fn();
        return GUARD_OK;
    }
    if (sigsetjmp(env, 0)) return landed();
    armed = 1;
    fn();
    armed = 0;
    busy.store(0, std::memory_order_release);
    return GUARD_OK;
}

/* The same for a function returning uint32_t: its value, or -GUARD_TIMEOUT /
 * -GUARD_INTERRUPTED. */
EXPORT int64_t blinkc_guard_call_u32(u32_fn fn) {
    if (!begin()) return fn();
    if (sigsetjmp(env, 0)) return -landed();
    armed = 1;
    uint32_t value = fn();
    armed = 0;
    busy.store(0, std::memory_order_release);
    return value;
}

/* Before a run: the budget (CPU ns per call; 0: no limit), and SIGINT (SIGTERM) counted. */
EXPORT void blinkc_guard_prepare(int64_t budget) {
    budget_ns.store(budget < 0 ? 0 : budget);
    chain_signals();
}

/* The SIGINT count, for the world core to read between events. */
EXPORT const volatile int *blinkc_guard_interrupts(void) { return &interrupts; }

/* on != 0: hold SIGINTs (SIGTERMs) back from Python; 0: hand over those that came
 * meanwhile (returns 1 then: Python's handler has run, and its KeyboardInterrupt is due).
 * Calls nest. */
EXPORT int blinkc_guard_defer(int on) {
    if (on) {
        deferring.fetch_add(1);
        return 0;
    }
    int bits;
    if (deferring.fetch_sub(1) != 1 || !(bits = held.exchange(0))) return 0;
    for (int k = 0; k < 2; ++k) {
        if (!(bits >> k & 1)) continue;
        siginfo_t info;
        memset(&info, 0, sizeof info);
        info.si_signo = SIGNALS[k];
        to_python(SIGNALS[k], &info, nullptr);
    }
    return 1;
}

/* How the last guarded call ended: GUARD_OK, or why it was stopped (for Python, whose
 * KeyboardInterrupt may come before it has seen the call's result). */
EXPORT int blinkc_guard_last_stop(void) { return last_stop; }

/* CPU time (ns) the last stopped call had used when the watchdog stopped it. */
EXPORT int64_t blinkc_guard_ran_ns(void) { return ran_ns.load(); }
