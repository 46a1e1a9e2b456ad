/* cudavision tests — files on disk for tests that read paths: a temporary
 * file with given contents and a temporary directory, each removed at
 * scope exit, and a file's bytes. Header-only, so the unit tests can use
 * it without the test library. */
#pragma once

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <system_error>

namespace cvtest {

struct TempFile {
  TempFile (const std::string & name, const std::string & text)
  {
    path = (std::filesystem::temp_directory_path () / ("cudavision-" + std::to_string (::getpid ()) + "-" + name))
               .string ();
    std::ofstream (path, std::ios::binary) << text;
  }
  ~TempFile () { std::filesystem::remove (path); }
  TempFile (const TempFile &) = delete;
  TempFile & operator= (const TempFile &) = delete;
  std::string path;
};

/* A fresh directory under the system temp dir, removed with all it holds
 * at scope exit. */
struct TempDir {
  TempDir ()
  {
    std::random_device rd;
    path = std::filesystem::temp_directory_path () /
        ("cudavision-" + std::to_string (::getpid ()) + "-" + std::to_string (rd ()) + "-" +
            std::to_string (std::chrono::steady_clock::now ().time_since_epoch ().count ()));
    std::filesystem::create_directories (path);
  }
  ~TempDir ()
  {
    std::error_code ec;
    std::filesystem::remove_all (path, ec);
  }
  TempDir (const TempDir &) = delete;
  TempDir & operator= (const TempDir &) = delete;
  /* The path of `name` in the directory. */
  std::string operator/ (const std::string & name) const { return (path / name).string (); }
  std::filesystem::path path;
};

inline std::string
read_text (const std::string & path)
{
  std::ifstream f (path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf ();
  return s.str ();
}

}  // namespace cvtest
