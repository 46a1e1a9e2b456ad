/* cudavision — reading a whole file that names a configuration (a cascade,
 * a tuning table, a tuner's samples), bounded.
 *
 * Such paths come from element properties and command lines, so they can
 * name anything: /dev/zero and /dev/urandom (endless), a FIFO (open()
 * blocks until a writer comes), a directory, a symlink loop. The reader
 * opens with O_NONBLOCK (a FIFO opens at once), checks the open
 * descriptor with fstat (no race between the check and the read), takes
 * regular files only, and reads until end of file or the caller's limit,
 * whichever comes first; st_size only sizes the buffer, since a file can
 * grow while it is read. Pure C++ and POSIX (no GLib, no CUDA): the
 * policy library, the face cascade reader and the tools share it. */
#pragma once

#include <cstddef>
#include <string>

namespace cudavision {

/* Reads the regular file `path` into *contents, at most max_bytes bytes.
 * On failure returns false with *error "PATH: <cause>", the cause named
 * from errno or from what the file is, e.g.
 *   "PATH: is a character device, not a regular file"
 *   "PATH: cannot open: too many levels of symbolic links (a symlink loop?)"
 *   "PATH: cannot open: a component of the path is not a directory"
 *   "PATH: larger than 16 MiB, the limit for a cascade file"
 * `what` names the kind of file in that last message ("a cascade file").
 * *errnum (when given) is the errno of the failure: ENOENT for a missing
 * file (callers that start afresh without one test for it), EFBIG over the
 * limit, and for a file that is not regular EISDIR (a directory) or
 * ENODEV (anything else). */
bool read_regular_file (const std::string & path, size_t max_bytes, const char *what, std::string * contents,
    std::string * error, int *errnum = nullptr);

/* "16 MiB", "512 KiB", "100 bytes": a limit in messages. */
std::string format_byte_limit (size_t bytes);

}  // namespace cudavision
