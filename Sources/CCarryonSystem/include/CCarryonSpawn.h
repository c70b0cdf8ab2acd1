#ifndef CCARRYON_SPAWN_H
#define CCARRYON_SPAWN_H

#include <sys/types.h>

/// Makes a pipe whose two descriptors close on exec (pipe2 with O_CLOEXEC); returns 0, or the
/// errno.
int carryon_pipe(int descriptors[2]);

/// Starts `path` with `arguments` and `environment` (NULL-terminated) in `directory` (NULL: this
/// process's), its standard input /dev/null, its standard output and error `output` and `errors`
/// (-1: /dev/null), no other descriptor of this process, every signal at its default and none
/// blocked, in a process group of its own. Returns 0 with the child's id in `pid`, or the errno.
int carryon_spawn(pid_t *pid, const char *path, char *const arguments[], char *const environment[],
                  const char *directory, int output, int errors);

#endif
