/* The signals a trace can end by (its END record), named once for every output. */
#ifndef WT_SIGNAME_H
#define WT_SIGNAME_H

#include <signal.h>
#include <stddef.h>

/* "SIGTERM" for the crash and kill signals the recorder handles, NULL for any other. */
static inline const char *wt_signal_name(int signo)
{
    switch (signo) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    default: return NULL;
    }
}

/* A signal that kills the process from outside (timeout, a scheduler, Ctrl-C), as opposed to
 * a crash of the program. */
static inline int wt_signal_is_kill(int signo)
{
    return signo == SIGTERM || signo == SIGINT || signo == SIGHUP || signo == SIGQUIT;
}

#endif
