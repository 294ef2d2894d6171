// ScopedEnv: an environment variable set for one scope (the layer reads its settings at
// vkCreateInstance, so a test sets them around the harness it builds).
#pragma once

#include <cstdlib>
#include <string>

namespace bindery::test {

// Sets an environment variable for one scope (the layer reads settings at vkCreateInstance).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      had_old_ = true;
      old_ = old;
    }
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_old_) ::setenv(name_.c_str(), old_.c_str(), 1);
    else ::unsetenv(name_.c_str());
  }

 private:
  std::string name_;  // a copy: callers may pass names that do not outlive the scope
  bool had_old_ = false;
  std::string old_;
};

}  // namespace bindery::test
