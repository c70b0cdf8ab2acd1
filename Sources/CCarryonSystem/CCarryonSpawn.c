// Starting a child process without the descriptor races of Foundation's Process on Linux, whose
// Pipe() makes descriptors without O_CLOEXEC and whose spawn closes, in the child, only the
// descriptors it listed a moment before: a pipe another thread made in between leaks into that
// child, and the pipe's reader then waits for the end of a stranger.
#define _GNU_SOURCE
#include "CCarryonSpawn.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

int carryon_pipe(int descriptors[2]) {
    return pipe2(descriptors, O_CLOEXEC) == 0 ? 0 : errno;
}

int carryon_spawn(pid_t *pid, const char *path, char *const arguments[], char *const environment[],
                  const char *directory, int output, int errors) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) return result;
    result = posix_spawnattr_init(&attributes);
    if (result != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return result;
    }
    if (result == 0) result = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (result == 0) result = output >= 0 ? posix_spawn_file_actions_adddup2(&actions, output, 1)
                                          : posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    if (result == 0) result = errors >= 0 ? posix_spawn_file_actions_adddup2(&actions, errors, 2)
                                          : posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    if (result == 0 && directory != NULL) result = posix_spawn_file_actions_addchdir_np(&actions, directory);
    // Whatever else this process has open stays here, made with O_CLOEXEC or not.
    if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    // Signals as a freshly started program has them: this process ignores SIGPIPE (SwiftNIO
    // does), and an ignored signal stays ignored across exec.
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    if (result == 0) result = posix_spawnattr_setsigdefault(&attributes, &all);
    if (result == 0) result = posix_spawnattr_setsigmask(&attributes, &none);
    // A group of its own, as Foundation's Process does: a terminal's Ctrl-C is for the tests.
    if (result == 0) result = posix_spawnattr_setpgroup(&attributes, 0);
    if (result == 0) result = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
    if (result == 0) result = posix_spawn(pid, path, &actions, &attributes, arguments, environment);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return result;
}
