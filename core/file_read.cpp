/* cudavision — bounded reads of regular files (see file_read.h). */
#include "file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

namespace cudavision {

namespace {

/* The cause of a failed open() in words; the errno names of the rows
 * that users meet are spelled out, the rest come from the C library. */
std::string
open_failure (int err)
{
  switch (err) {
    case ENOENT:
      return "no such file";
    case ELOOP:
      return "too many levels of symbolic links (a symlink loop?)";
    case ENOTDIR:
      return "a component of the path is not a directory";
    case EISDIR:
      return "is a directory";
    case EACCES:
    case EPERM:
      return "permission denied";
    case ENAMETOOLONG:
      return "the path is too long";
    default:
      return std::generic_category ().message (err);
  }
}

const char *
file_type_name (mode_t mode)
{
  if (S_ISDIR (mode))
    return "a directory";
  if (S_ISFIFO (mode))
    return "a FIFO (named pipe)";
  if (S_ISCHR (mode))
    return "a character device";
  if (S_ISBLK (mode))
    return "a block device";
  if (S_ISSOCK (mode))
    return "a socket";
  return "not a plain file";
}

struct Fd {
  int fd;
  ~Fd ()
  {
    if (fd >= 0)
      close (fd);
  }
};

}  // namespace

std::string
format_byte_limit (size_t bytes)
{
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
    return std::to_string (bytes >> 20) + " MiB";
  if (bytes >= (1u << 10) && bytes % (1u << 10) == 0)
    return std::to_string (bytes >> 10) + " KiB";
  return std::to_string (bytes) + " bytes";
}

bool
read_regular_file (const std::string & path, size_t max_bytes, const char *what, std::string * contents,
    std::string * error, int *errnum)
{
  auto fail = [&] (int err, const std::string & why) {
    if (error)
      *error = path + ": " + why;
    if (errnum)
      *errnum = err;
    return false;
  };
  if (path.empty ())
    return fail (ENOENT, "no file given");
  /* O_NONBLOCK: a FIFO opens at once instead of waiting for a writer (and
   * is refused below); on a regular file it changes nothing. O_NOCTTY: a
   * terminal named by mistake does not become ours. */
  Fd f { open (path.c_str (), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) };
  if (f.fd < 0) {
    const int err = errno;
    return fail (err, "cannot open: " + open_failure (err));
  }
  struct stat st;
  if (fstat (f.fd, &st) != 0) {
    const int err = errno;
    return fail (err, "cannot stat: " + std::generic_category ().message (err));
  }
  if (!S_ISREG (st.st_mode))
    return fail (S_ISDIR (st.st_mode) ? EISDIR : ENODEV,
        std::string ("is ") + file_type_name (st.st_mode) + ", not a regular file");
  const std::string too_large =
      std::string ("larger than ") + format_byte_limit (max_bytes) + ", the limit for " + what;
  if (st.st_size > 0 && (unsigned long long) st.st_size > max_bytes)
    return fail (EFBIG, too_large + " (" + std::to_string ((long long) st.st_size) + " bytes)");

  /* st_size is a hint only: read to the end, one byte past the limit at
   * most, so that a file that grew since fstat is still caught. */
  std::string buf;
  buf.resize (st.st_size > 0 ? (size_t) st.st_size + 1 : 4096);
  size_t have = 0;
  for (;;) {
    if (have == buf.size ())
      buf.resize (std::min (buf.size () * 2, max_bytes + 1));
    const ssize_t n = read (f.fd, &buf[have], buf.size () - have);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      const int err = errno;
      return fail (err, "read error: " + std::generic_category ().message (err));
    }
    if (n == 0)
      break;
    have += (size_t) n;
    if (have > max_bytes)
      return fail (EFBIG, too_large);
  }
  buf.resize (have);
  *contents = std::move (buf);
  if (errnum)
    *errnum = 0;
  return true;
}

}  // namespace cudavision
