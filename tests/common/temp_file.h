/* cudavision tests — files on disk for tests that read paths: a temporary
 * file with given contents, removed at scope exit, and a file's bytes.
 * Header-only, so the unit tests can use it without the test library. */
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

inline std::string
read_text (const std::string & path)
{
  std::ifstream f (path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf ();
  return s.str ();
}

}  // namespace cvtest
