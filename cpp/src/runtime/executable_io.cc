// Saving and loading an Executable: one file with a header, the program as JSON, the
// constants' bytes and the serialised module tree. No IR: the runtime alone reads it.
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "byte_io.h"
#include "tessera/runtime/executable.h"
#include "tessera/support/error.h"
#include "tessera/support/sha256.h"

namespace tessera::runtime {

namespace {

// Layout: magic, u32 version, then three u64-length-prefixed sections (program JSON,
// constants, module tree), then the SHA-256 of everything before it as 64 hex digits (so
// damaged or truncated bytes never reach a kernel). It protects against accidents, not
// against a crafted file: a saved program holds native code that is loaded and run.
constexpr char kMagic[] = "TESSERA-EXEC";
constexpr size_t kMagicLen = sizeof(kMagic) - 1;
// Version 4 added slots that are parts of others (two more fields of a slot). Version 5:
// native kernels read TsKernelEnv::reverse, which earlier executors do not pass, so every
// program is written as version 5 and earlier builds refuse it.
constexpr uint32_t kVersion = 5;
constexpr uint32_t kOldestVersion = 3;
constexpr size_t kDigestLen = 64;
constexpr const char* kSlotKinds[] = {"input", "constant", "intermediate", "output"};

nlohmann::json ProgramToJson(const Program& p, int num_threads, const std::string& report) {
  nlohmann::json slots = nlohmann::json::array();
  for (const Slot& s : p.slots) {
    nlohmann::json slot = {kSlotKinds[static_cast<int>(s.kind)], DTypeName(s.dtype), s.shape,
                           s.index};
    if (s.view_of >= 0) {
      slot.push_back(s.view_of);
      slot.push_back(s.view_offset);
    }
    slots.push_back(std::move(slot));
  }
  nlohmann::json calls = nlohmann::json::array();
  for (const Instruction& ins : p.instructions)
    calls.push_back({ins.symbol, ins.args, ins.num_outputs});
  return {{"inputs", p.input_names},     {"slots", slots},
          {"calls", calls},              {"outputs", p.output_slots},
          {"returns_tuple", p.returns_tuple}, {"num_threads", num_threads},
          {"collage_report", report}};
}

/// `v` as an integer in [lo, hi], else a parse error naming `what` (a float or a number out
/// of range would convert with undefined behaviour).
int64_t IntegerOf(const nlohmann::json& v, int64_t lo, int64_t hi, const char* what) {
  bool ok = v.is_number_unsigned() ? v.get<uint64_t>() <= static_cast<uint64_t>(hi)
                                   : v.is_number_integer() && v.get<int64_t>() >= lo &&
                                         v.get<int64_t>() <= hi;
  if (!ok)
    TS_THROW(kParse) << "executable: " << what << " is not an integer in range: " << v.dump();
  return v.is_number_unsigned() ? static_cast<int64_t>(v.get<uint64_t>()) : v.get<int64_t>();
}

/// `v` as an int (IntegerOf).
int IntOf(const nlohmann::json& v, const char* what) {
  return static_cast<int>(IntegerOf(v, INT_MIN, INT_MAX, what));
}

/// `v`, an array, as ints (IntegerOf).
std::vector<int> IntsOf(const nlohmann::json& v, const char* what) {
  std::vector<int> out;
  for (const nlohmann::json& x : v.get<std::vector<nlohmann::json>>())
    out.push_back(IntOf(x, what));
  return out;
}

/// Reads the program written by ProgramToJson; constants come from `blob`.
Program ProgramFromJson(const std::string& text, const std::string& blob, uint32_t version,
                        int* num_threads, std::string* report) {
  Program p;
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    p.input_names = j.at("inputs").get<std::vector<std::string>>();
    for (const nlohmann::json& s : j.at("slots")) {
      Slot slot;
      std::string kind = s.at(0).get<std::string>();
      int k = 0;
      while (k < 4 && kind != kSlotKinds[k]) ++k;
      if (k == 4) TS_THROW(kParse) << "executable: unknown slot kind '" << kind << "'";
      slot.kind = static_cast<SlotKind>(k);
      slot.dtype = ParseDTypeOrThrow(s.at(1).get<std::string>(), "executable slot");
      for (const nlohmann::json& d : s.at(2).get<std::vector<nlohmann::json>>())
        slot.shape.push_back(IntegerOf(d, 0, INT64_MAX, "a slot's extent"));
      slot.index = IntOf(s.at(3), "a slot's index");
      if (s.size() != 4 && (s.size() != 6 || version < 4))
        TS_THROW(kParse) << "executable: a slot of format version " << version << " has "
                         << s.size() << " fields";
      if (s.size() == 6) {
        slot.view_of = IntOf(s.at(4), "a slot's whole");
        slot.view_offset =
            static_cast<size_t>(IntegerOf(s.at(5), 0, INT64_MAX, "a part's byte offset"));
      }
      slot.bytes = static_cast<size_t>(ShapeNumElements(slot.shape)) * DTypeBytes(slot.dtype);
      p.slots.push_back(std::move(slot));
    }
    for (const nlohmann::json& c : j.at("calls"))
      p.instructions.push_back(Instruction{c.at(0).get<std::string>(),
                                           IntsOf(c.at(1), "a call's slot"),
                                           IntOf(c.at(2), "a call's output count")});
    p.output_slots = IntsOf(j.at("outputs"), "a result slot");
    p.returns_tuple = j.at("returns_tuple").get<bool>();
    *num_threads = IntOf(j.at("num_threads"), "the thread count");
    *report = j.at("collage_report").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    TS_THROW(kParse) << "executable: malformed program: " << e.what();
  } catch (const Error& e) {
    throw Error(ErrorKind::kParse, e.what());
  }
  // Constants, in index order: each is its constant slot's bytes.
  std::vector<const Slot*> const_slots;
  for (const Slot& s : p.slots)
    if (s.kind == SlotKind::kConstant) {
      if (s.index < 0 || s.index >= static_cast<int>(p.slots.size()))
        TS_THROW(kParse) << "executable: constant slot with a bad index " << s.index;
      if (const_slots.size() <= static_cast<size_t>(s.index)) const_slots.resize(s.index + 1);
      const_slots[s.index] = &s;
    }
  size_t pos = 0;
  for (size_t i = 0; i < const_slots.size(); ++i) {
    const Slot* s = const_slots[i];
    if (!s) TS_THROW(kParse) << "executable: constant " << i << " has no slot";
    if (s->bytes > blob.size() - pos)
      TS_THROW(kParse) << "executable: the constants section is truncated at constant " << i;
    NDArray a = NDArray::Empty(s->shape, s->dtype);
    if (s->bytes) std::memcpy(a.data(), blob.data() + pos, s->bytes);
    pos += s->bytes;
    p.constants.push_back(std::move(a));
  }
  if (pos != blob.size()) TS_THROW(kParse) << "executable: the constants section has extra bytes";
  return p;
}

}  // namespace

std::string Executable::SaveToBytes() const {
  std::string json = ProgramToJson(program_, num_threads_, collage_report_).dump();
  std::string blob;
  for (const NDArray& c : program_.constants)
    blob.append(static_cast<const char*>(c.data()), c.NumBytes());
  std::string tree = SerializeModuleTree(module_);
  std::string out(kMagic, kMagicLen);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((kVersion >> (8 * i)) & 0xff));
  for (const std::string* section : {&json, &blob, &tree}) {
    PutU64(out, section->size());
    out += *section;
  }
  out += Sha256Hex(out.data(), out.size());
  return out;
}

std::shared_ptr<Executable> Executable::LoadFromBytes(const std::string& bytes) {
  if (bytes.size() < kMagicLen || bytes.compare(0, kMagicLen, kMagic) != 0)
    TS_THROW(kParse) << "not a Tessera executable (no '" << kMagic << "' header)";
  if (bytes.size() < kMagicLen + 4 + 8 + 8 + 8 + kDigestLen)
    TS_THROW(kParse) << "executable is truncated (" << bytes.size() << " bytes)";
  uint32_t version = 0;
  for (int i = 0; i < 4; ++i)
    version |= uint32_t(static_cast<unsigned char>(bytes[kMagicLen + i])) << (8 * i);
  if (version < kOldestVersion || version > kVersion)
    TS_THROW(kParse) << "executable has format version " << version << "; this build reads "
                     << kOldestVersion << " to " << kVersion
                     << (version > kVersion ? " (a newer Tessera wrote it: run it with that one)"
                                            : " (rebuild the program with this version)");
  size_t body_end = bytes.size() - kDigestLen;
  if (bytes.compare(body_end, kDigestLen, Sha256Hex(bytes.data(), body_end)) != 0)
    TS_THROW(kParse) << "executable is damaged or truncated (checksum mismatch)";
  size_t pos = kMagicLen + 4;
  auto take = [&](const char* what) {
    if (body_end - pos < 8) TS_THROW(kParse) << "executable is truncated before " << what;
    uint64_t n = GetU64(bytes, pos);
    pos += 8;
    if (n > body_end - pos) TS_THROW(kParse) << "executable is truncated inside " << what;
    std::string s = bytes.substr(pos, n);
    pos += n;
    return s;
  };
  std::string json = take("the program");
  std::string blob = take("the constants");
  std::string tree = take("the module tree");
  if (pos != body_end) TS_THROW(kParse) << "executable has unexpected trailing bytes";

  int num_threads = 0;
  std::string report;
  Program program = ProgramFromJson(json, blob, version, &num_threads, &report);
  std::shared_ptr<Executable> exe;
  try {
    exe = Create(std::move(program), DeserializeModuleTree(tree));
    exe->SetDefaultNumThreads(num_threads);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kValue) throw;
    throw Error(ErrorKind::kParse, e.what());  // an inconsistent file is a damaged file
  }
  exe->collage_report_ = std::move(report);
  return exe;
}

void Executable::Save(const std::string& path) const {
  std::string bytes = SaveToBytes();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) TS_THROW(kIO) << "cannot open '" << path << "' for writing";
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) TS_THROW(kIO) << "failed writing executable to '" << path << "'";
}

std::shared_ptr<Executable> Executable::Load(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    TS_THROW(kIO) << "'" << path << "' is a directory, not an executable file";
  std::ifstream in(path, std::ios::binary);
  if (!in) TS_THROW(kNotFound) << "cannot open executable file '" << path << "'";
  std::ostringstream buf;
  buf << in.rdbuf();
  try {
    return LoadFromBytes(buf.str());
  } catch (const Error& err) {
    throw Error(err.kind(), "'" + path + "': " + err.what());
  }
}

}  // namespace tessera::runtime
