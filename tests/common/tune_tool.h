/* cudavision tests — running cudavision-tune, the program the build made
 * (tools/cudavision-tune next to the tests' directory, or
 * $CUDAVISION_TUNE). Header-only: the CPU and the GPU tuner tests use it. */
#pragma once

#include <glib.h>
#include <sys/wait.h>

#include <filesystem>
#include <string>
#include <vector>

namespace cvtest {

inline std::string
tuner_path ()
{
  if (const gchar *e = g_getenv ("CUDAVISION_TUNE"))
    return e;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink ("/proc/self/exe", ec);
  return (self.parent_path ().parent_path () / "tools" / "cudavision-tune").string ();
}

/* Runs the tuner with `args`; returns its exit status (-1 if it could not
 * start), its stdout and stderr in *out. */
inline int
run_tuner (const std::vector<std::string> & args, std::string * out)
{
  std::vector<std::string> all = { tuner_path () };
  all.insert (all.end (), args.begin (), args.end ());
  std::vector<gchar *> argv;
  for (auto & a : all)
    argv.push_back (const_cast<gchar *> (a.c_str ()));
  argv.push_back (nullptr);
  gchar *so = nullptr, *se = nullptr;
  gint status = 0;
  GError *err = nullptr;
  if (!g_spawn_sync (nullptr, argv.data (), nullptr, G_SPAWN_DEFAULT, nullptr, nullptr, &so, &se, &status, &err)) {
    *out = std::string ("cannot run ") + all[0] + ": " + err->message;
    g_error_free (err);
    return -1;
  }
  *out = std::string (so ? so : "") + (se ? se : "");
  g_free (so);
  g_free (se);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

}  // namespace cvtest
