// CLI helpers: argument scanning and module/file input-output.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <unistd.h>

#include "cli.h"
#include "tessera/frontend/onnx.h"
#include "tessera/ir/json.h"
#include "tessera/ir/parser.h"
#include "tessera/support/error.h"

namespace tessera::cli {

ArgList::ArgList(const std::vector<std::string>& args, const std::vector<std::string>& flags,
                 const std::vector<std::string>& options, const char* command) {
  auto contains = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-' || arg == "-") {
      positionals_.push_back(arg);
      continue;
    }
    std::string key = arg, value;
    bool inline_value = false;
    if (size_t eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      key = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inline_value = true;
    }
    if (contains(flags, key) && !inline_value) {
      values_.emplace_back(key, "");
      continue;
    }
    if (!contains(options, key)) {
      std::string valid;
      for (const auto& f : flags) valid += " " + f;
      for (const auto& o : options) valid += " " + o;
      TS_THROW(kValue) << "unknown option '" << key << "' for '" << command << "' (valid:" << valid
                       << ")";
    }
    if (!inline_value) {
      if (i + 1 >= args.size()) TS_THROW(kValue) << "option '" << key << "' needs a value";
      value = args[++i];
    }
    values_.emplace_back(key, value);
  }
}

bool ArgList::Has(const std::string& flag) const {
  return std::any_of(values_.begin(), values_.end(),
                     [&](const auto& kv) { return kv.first == flag; });
}

std::string ArgList::Get(const std::string& key, const std::string& fallback) const {
  std::string result = fallback;
  for (const auto& [k, v] : values_)
    if (k == key) result = v;
  return result;
}

std::vector<std::string> ArgList::GetAll(const std::string& key) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : values_)
    if (k == key) out.push_back(v);
  return out;
}

std::string ReadFileOrStdin(const std::string& path) {
  std::ostringstream buffer;
  if (path == "-") {
    buffer << std::cin.rdbuf();
    return buffer.str();
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    TS_THROW(kIO) << "'" << path << "' is a directory, not a file";
  std::ifstream in(path, std::ios::binary);
  if (!in) TS_THROW(kIO) << "cannot open '" << path << "'";
  buffer << in.rdbuf();
  return buffer.str();
}

void Progress(const std::string& message) {
  static const bool tty = isatty(STDERR_FILENO) != 0;
  if (!tty) return;
  std::fprintf(stderr, "\r\033[K%s", message.c_str());
  if (message.empty()) std::fprintf(stderr, "\r");
  std::fflush(stderr);
}

IRModule LoadModule(const std::string& path) {
  std::string text = ReadFileOrStdin(path);
  std::string shown = path == "-" ? "<stdin>" : path;
  // An ONNX ModelProto starts with field 1 (ir_version, a varint): tag byte 0x08.
  bool onnx = (path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0) ||
              (!text.empty() && text[0] == '\x08');
  if (onnx) {
    Progress("importing " + shown + " ...");
    IRModule mod = frontend::FromOnnxBytes(text, {}, shown);
    Progress("");
    return mod;
  }
  if (text.rfind("TESSERA-EXEC", 0) == 0)
    TS_THROW(kValue) << shown << " is a compiled executable, not a module: run it with "
                     << "`tessera run " << shown << "`";
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    try {
      return ModuleFromJson(text);
    } catch (const Error& e) {
      // The JSON reader knows positions but not the file; say which file it was.
      throw Error(e.kind(), shown + ": " + e.what());
    }
  }
  return ParseModule(text, path == "-" ? "<stdin>" : path);
}

void WriteTextFile(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return;
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) TS_THROW(kIO) << "cannot write '" << path << "'";
  out << text;
}

}  // namespace tessera::cli
