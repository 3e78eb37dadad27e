// Built-in pass instruments: timing tree, IR printing, IR dumping and verification.
#include "tessera/transform/pass_instrument.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/support/error.h"
#include "tessera/transform/pass.h"

namespace tessera {

// ---- Timing ------------------------------------------------------------------------

struct PassTimingInstrument::Impl {
  struct Node {
    std::string name;
    double seconds = 0;
    std::vector<size_t> children;
  };
  using Clock = std::chrono::steady_clock;
  std::vector<Node> nodes;                                 // nodes[0] is a synthetic root
  std::vector<std::pair<size_t, Clock::time_point>> open;  // running passes

  void Reset() {
    nodes.assign(1, Node{"root", 0, {}});
    open.clear();
  }
  /// Stops the innermost running pass named `name`. Passes opened above it whose after
  /// hook never came (another instrument threw before reaching this one) are closed
  /// too, so one lost hook does not shift every later measurement.
  void Close(const std::string& name) {
    size_t k = open.size();
    while (k > 0 && nodes[open[k - 1].first].name != name) --k;
    if (k == 0) return;  // not ours: e.g. the context was re-entered mid-pass
    auto now = Clock::now();
    while (open.size() >= k) {
      auto [index, start] = open.back();
      open.pop_back();
      nodes[index].seconds = std::chrono::duration<double>(now - start).count();
    }
  }
  void Render(size_t index, int depth, double root_total, double parent_total,
              std::string& out) const {
    const Node& n = nodes[index];
    double child_total = 0;
    for (size_t c : n.children) child_total += nodes[c].seconds;
    char line[512];
    std::snprintf(line, sizeof(line), "%*s%s: %.0fus [%.0fus] (%.2f%%; %.2f%%)\n", depth * 2, "",
                  n.name.c_str(), n.seconds * 1e6, std::max(0.0, n.seconds - child_total) * 1e6,
                  root_total > 0 ? 100.0 * n.seconds / root_total : 100.0,
                  parent_total > 0 ? 100.0 * n.seconds / parent_total : 100.0);
    out += line;
    for (size_t c : n.children) Render(c, depth + 1, root_total, n.seconds, out);
  }
};

PassTimingInstrument::PassTimingInstrument()
    : PassInstrument("PassTimingInstrument"), impl_(std::make_unique<Impl>()) {
  impl_->Reset();
}

PassTimingInstrument::~PassTimingInstrument() = default;

void PassTimingInstrument::EnterPassContext() {
  impl_->Reset();
}

void PassTimingInstrument::RunBeforePass(const IRModule&, const PassInfo& info) {
  size_t parent = impl_->open.empty() ? 0 : impl_->open.back().first;
  impl_->nodes.push_back(Impl::Node{info.name, 0, {}});
  size_t index = impl_->nodes.size() - 1;
  impl_->nodes[parent].children.push_back(index);
  impl_->open.emplace_back(index, Impl::Clock::now());
}

void PassTimingInstrument::RunAfterPass(const IRModule&, const PassInfo& info) {
  impl_->Close(info.name);
}

void PassTimingInstrument::RunAfterPassFailed(const IRModule&, const PassInfo& info) {
  // Unlike TVM, a failing pass still closes its timer, so the tree stays consistent.
  impl_->Close(info.name);
}

std::string PassTimingInstrument::Render() const {
  std::string out;
  for (size_t c : impl_->nodes[0].children)
    impl_->Render(c, 0, impl_->nodes[c].seconds, impl_->nodes[c].seconds, out);
  return out;
}

// ---- Printing ----------------------------------------------------------------------

PrintIRInstrument::PrintIRInstrument(PrintIROptions options, std::FILE* out)
    : PassInstrument("PrintIRInstrument"), options_(std::move(options)), out_(out) {}

static bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

void PrintIRInstrument::RunBeforePass(const IRModule& mod, const PassInfo& info) {
  if (options_.after_change) hash_stack_.push_back(StructuralHash(mod));
  if (!options_.before_all && !Contains(options_.before_passes, info.name)) return;
  std::fprintf(out_, "// Before Running Pass: %s\n%s\n", info.ToString().c_str(),
               PrintModule(mod).c_str());
}

void PrintIRInstrument::EnterPassContext() {
  hash_stack_.clear();
}

void PrintIRInstrument::RunAfterPassFailed(const IRModule&, const PassInfo&) {
  // Keep the before-hashes paired with their passes when a failure is caught upstream.
  if (options_.after_change && !hash_stack_.empty()) hash_stack_.pop_back();
}

void PrintIRInstrument::RunAfterPass(const IRModule& mod, const PassInfo& info) {
  bool print = options_.after_all || Contains(options_.after_passes, info.name);
  if (options_.after_change && !hash_stack_.empty()) {
    size_t before = hash_stack_.back();
    hash_stack_.pop_back();
    if (StructuralHash(mod) != before) print = true;
  }
  if (!print) return;
  std::fprintf(out_, "// After Running Pass: %s\n%s\n", info.ToString().c_str(),
               PrintModule(mod).c_str());
}

// ---- Dumping -----------------------------------------------------------------------

DumpIRInstrument::DumpIRInstrument(std::string dir)
    : PassInstrument("DumpIRInstrument"), dir_(std::move(dir)) {}

void DumpIRInstrument::EnterPassContext() {
  counter_ = 0;
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) TS_THROW(kIO) << "cannot create IR dump directory '" << dir_ << "': " << ec.message();
}

void DumpIRInstrument::RunAfterPass(const IRModule& mod, const PassInfo& info) {
  char prefix[16];
  std::snprintf(prefix, sizeof(prefix), "%03d_", counter_++);
  // Pass names are free-form (a Sequential may be named anything): keep file names safe.
  std::string stem = info.name;
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  std::string path = dir_ + "/" + prefix + stem + ".txt";
  std::ofstream out(path);
  if (!out) TS_THROW(kIO) << "cannot write IR dump '" << path << "'";
  out << PrintModule(mod);
}

// ---- Verifier ----------------------------------------------------------------------

void VerifierInstrument::RunAfterPass(const IRModule& mod, const PassInfo& info) {
  try {
    VerifyModule(mod);
  } catch (const Error& e) {
    TS_THROW(kValue) << "pass '" << info.name << "' produced ill-formed IR: " << e.what();
  }
}

}  // namespace tessera
