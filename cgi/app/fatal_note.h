/*
 * fatal_note.h - a detached worker's last words. A worker killed by a
 * fatal signal (a crash, an abort) leaves no final state; the server then
 * fails its run as "worker died" and shows the last line of the worker's
 * stderr file (store/agent_runs.c). This writes that line: "PROG ID: fatal
 * signal N (NAME)", then lets the signal take its default action (a core
 * where the system keeps them). Runs on its own stack so a stack overflow
 * is reported too.
 *
 * Ownership: prog is copied into a static buffer; nothing is allocated
 * after the call (the handler only writes and re-raises).
 */
#ifndef FS_FATAL_NOTE_H
#define FS_FATAL_NOTE_H

/* Installs the handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT.
 * Returns 0, or -1 when one could not be installed (the worker runs on). */
int fs_fatal_note_install(const char *prog, long long id);

#endif
