// segv_backtrace.so: LD_PRELOAD it into a process that dies of SIGSEGV, SIGBUS, SIGILL, SIGFPE
// or SIGABRT somewhere nobody can attach a debugger (the GPU machine has no gdb, and cuda-gdb
// turns CUDA injections off). On the signal it writes to stderr the faulting address, the
// thread's name, a backtrace of that thread (frames as `library(+offset)`, which addr2line or
// nm resolve against the unstripped build) and the executable mappings, then re-raises the
// signal with the default action, so the exit status is unchanged.
//
//   cc -O1 -g -shared -fPIC -o segv_backtrace.so segv_backtrace.c
#define _GNU_SOURCE
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static char alt_stack[1 << 16];

static void say(const char *text) { (void)!write(2, text, strlen(text)); }

static void dump_maps(void) {
    int fd = open("/proc/self/maps", O_RDONLY);
    if (fd < 0) return;
    char buf[4096], line[1024];
    size_t used = 0;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            if (used < sizeof line - 1) line[used++] = buf[i];
            if (buf[i] == '\n') {
                line[used] = 0;
                // Executable mappings of named files only.
                if (strstr(line, " r-xp ") && strchr(line, '/')) say(line);
                used = 0;
            }
        }
    }
    close(fd);
}

static void on_fatal(int sig, siginfo_t *info, void *context) {
    (void)context;
    char head[256], name[17] = {0};
    prctl(PR_GET_NAME, name);
    snprintf(head, sizeof head, "\nsegv_backtrace: signal %d at address %p in thread %d \"%s\"\n", sig,
             info->si_addr, (int)gettid(), name);
    say(head);
    void *frames[64];
    int depth = backtrace(frames, 64);
    backtrace_symbols_fd(frames, depth, 2);
    say("segv_backtrace: executable mappings\n");
    dump_maps();
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor)) static void install(void) {
    // backtrace() loads libgcc_s on first use: not inside the handler.
    void *warm[2];
    backtrace(warm, 2);
    stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack, .ss_flags = 0};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &sa, NULL);
}
