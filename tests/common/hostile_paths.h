/* cudavision tests — paths that a file reader must refuse at once rather
 * than read: a FIFO whose blocking open() is released instead of hanging
 * the test, a large file that takes no disk space, and a reader run as an
 * unprivileged user (root reads a chmod 000 file). The cascade parser's
 * and the tuning table's tests share them. Header-only, so the unit tests
 * can use it without the test library. */
#pragma once

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace cvtest {

/* How long `fn ()` took, in seconds: a refusal must come at once. */
template <typename Fn>
double
seconds_taken (Fn fn)
{
  const auto t0 = std::chrono::steady_clock::now ();
  fn ();
  return std::chrono::duration<double> (std::chrono::steady_clock::now () - t0).count ();
}

/* `read ()`, a reader of the FIFO `fifo`: one that blocks in open() (one
 * without O_NONBLOCK waits for a writer) is released after 2 s by a
 * writer, so that it fails the test instead of hanging it. */
template <typename Read>
auto
read_fifo_released (const std::string & fifo, Read read) -> decltype (read ())
{
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread rescue ([&] {
    std::unique_lock<std::mutex> lock (m);
    if (cv.wait_for (lock, std::chrono::seconds (2), [&] { return done; }))
      return;
    const int fd = open (fifo.c_str (), O_WRONLY | O_NONBLOCK);
    if (fd >= 0)
      close (fd);
  });
  auto r = read ();
  {
    std::lock_guard<std::mutex> lock (m);
    done = true;
  }
  cv.notify_all ();
  rescue.join ();
  return r;
}

/* A file of `size` bytes that starts with `head`, the rest a hole (no
 * disk space, no time to write). */
inline void
sparse_file (const std::string & path, const std::string & head, off_t size)
{
  const int fd = open (path.c_str (), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE (fd, 0);
  ASSERT_EQ (write (fd, head.data (), head.size ()), (ssize_t) head.size ());
  ASSERT_EQ (ftruncate (fd, size), 0);
  close (fd);
}

/* `fn`'s result as an unprivileged user: in a child process that, when
 * root, becomes nobody (root reads any file, so a chmod 000 file shows
 * EACCES only so; CI runs as root). Empty when that is impossible. */
inline std::string
as_nobody (const std::function<std::string ()> & fn)
{
  int fds[2];
  if (pipe (fds) != 0)
    return "";
  const pid_t pid = fork ();
  if (pid == 0) {
    close (fds[0]);
    if (geteuid () == 0 && (setgid (65534) != 0 || setuid (65534) != 0))
      _exit (2);
    const std::string e = fn ();
    if (write (fds[1], e.data (), e.size ()) < 0)
      _exit (3);
    _exit (0);
  }
  close (fds[1]);
  std::string out;
  char buf[512];
  ssize_t n;
  while ((n = read (fds[0], buf, sizeof buf)) > 0)
    out.append (buf, (size_t) n);
  close (fds[0]);
  int status = 0;
  waitpid (pid, &status, 0);
  return WIFEXITED (status) && WEXITSTATUS (status) == 0 ? out : "";
}

}  // namespace cvtest
