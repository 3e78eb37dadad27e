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
      throw UsageError("unknown option '" + key + "' for '" + command + "' (valid:" + valid + ")");
    }
    if (!inline_value) {
      if (i + 1 >= args.size()) throw UsageError("option '" + key + "' needs a value");
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

const char* kShapeHelp =
    "  --shape NAME=D1,D2,...  static shape of ONNX input NAME (symbolic dimensions; repeatable)\n";

std::map<std::string, std::vector<int64_t>> ShapesFromArgs(const ArgList& args) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const std::string& spec : args.GetAll("--shape")) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      TS_THROW(kValue) << "--shape expects NAME=D1,D2,... (e.g. input=1,3,224,224), got '" << spec
                       << "'";
    std::vector<int64_t> dims;
    std::string rest = spec.substr(eq + 1);
    size_t start = 0;
    while (start <= rest.size()) {
      size_t comma = rest.find(',', start);
      std::string item =
          rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      size_t used = 0;
      long long v = -1;
      try {
        v = std::stoll(item, &used);
      } catch (const std::exception&) {
      }
      if (item.empty() || used != item.size() || v < 1)
        TS_THROW(kValue) << "--shape " << spec << ": dimension '" << item
                         << "' is not a positive integer";
      dims.push_back(v);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    shapes[spec.substr(0, eq)] = dims;
  }
  return shapes;
}

IRModule LoadModule(const std::string& path,
                    const std::map<std::string, std::vector<int64_t>>& shapes) {
  std::string text = ReadFileOrStdin(path);
  std::string shown = path == "-" ? "<stdin>" : path;
  // An ONNX ModelProto starts with field 1 (ir_version, a varint): tag byte 0x08.
  bool onnx = (path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0) ||
              (!text.empty() && text[0] == '\x08');
  if (onnx) {
    Progress("importing " + shown + " ...");
    frontend::OnnxImportOptions options;
    options.shape_overrides = shapes;
    IRModule mod = frontend::FromOnnxBytes(text, options, shown);
    Progress("");
    return mod;
  }
  if (!shapes.empty())
    TS_THROW(kValue) << "--shape applies to ONNX models only; " << shown
                     << " is text or JSON IR, whose parameters carry their shapes";
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
