// `tessera collage db stats|list|clear|export FILE|import FILE`: inspects and carries
// Collage's cost database.
#include <cmath>
#include <cstdio>
#include <ctime>
#include <set>

#include "cli.h"
#include "tessera/collage/cost_database.h"
#include "tessera/collage/cost_estimator.h"
#include "tessera/collage/fingerprint.h"
#include "tessera/support/error.h"

namespace tessera::cli {

static const char* kCollageDbHelp =
    "usage: tessera collage db stats|list|clear [--db PATH]\n"
    "       tessera collage db export FILE [--db PATH]\n"
    "       tessera collage db import FILE [--db PATH]\n"
    "\n"
    "Collage keeps every measured cost in a SQLite database (the config key collage.cost_db;\n"
    "by default collage.db in $TESSERA_CACHE_DIR, else ~/.cache/tessera), so a second build\n"
    "of a model measures nothing and other models reuse every kernel shape they share.\n"
    "  stats        records by kind, target and machine fingerprint; which are usable here\n"
    "  list         one line per record: hash, kind, target, cost, spread, samples, label\n"
    "  clear        removes every record\n"
    "  export FILE  writes the records as JSON lines (to carry costs to a machine with the\n"
    "               same fingerprint)\n"
    "  import FILE  adds the records of an exported file (records already present are kept)\n"
    "  --db PATH    the database file (default: the one Collage uses)\n"
    "  --kind KIND  list: only records of KIND (kernel, program, launch)\n";

namespace {

std::string When(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", &tm);
  return text;
}

std::string Bytes(int64_t n) {
  char text[32];
  if (n >= (int64_t{1} << 20))
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(n) / (1 << 20));
  else
    std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(n) / (1 << 10));
  return text;
}

int Stats(collage::CostDatabase& db) {
  collage::CostDatabaseStats st = db.Stats();
  std::printf("cost database: %s (%s)\n", st.path.c_str(), Bytes(st.bytes).c_str());
  std::printf("records: %lld (%lld invalid)\n", static_cast<long long>(st.records),
              static_cast<long long>(st.invalid));
  for (const auto& [kind, n] : st.by_kind) std::printf("  kind %-8s %lld\n", kind.c_str(), static_cast<long long>(n));
  std::set<std::string> here;
  for (const auto& [target, n] : st.by_target) {
    std::printf("  target %-28s %lld\n", target.c_str(), static_cast<long long>(n));
    here.insert(collage::LocalFingerprintHash(target));
  }
  for (const auto& [hash, entry] : st.by_fingerprint) {
    std::printf("  machine %s%s: %lld record(s)\n", hash.c_str(),
                here.count(hash) ? " (this machine)" : "", static_cast<long long>(entry.first));
    std::string text = entry.second;
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::printf("      %s\n", text.substr(start, end - start).c_str());
      start = end + 1;
    }
  }
  return 0;
}

int List(collage::CostDatabase& db, const std::string& kind) {
  for (const collage::CostRecord& r : db.List()) {
    if (!kind.empty() && r.kind != kind) continue;
    std::string cost = collage::CostToString(r.cost);
    std::string spread = std::isfinite(r.spread) ? "±" + collage::CostToString(r.spread) : "";
    std::printf("%.12s  %-7s  %-24s  %10s %12s  %3lld  %s  %s%s\n", r.key.hash.c_str(), r.kind.c_str(),
                r.key.target.c_str(), cost.c_str(), spread.c_str(), static_cast<long long>(r.repeats),
                When(r.measured_at).c_str(), r.label.c_str(),
                r.error.empty() ? "" : ("  (" + r.error.substr(0, r.error.find('\n')) + ")").c_str());
  }
  return 0;
}

}  // namespace

int RunCollageDb(const std::vector<std::string>& raw_args) {
  ArgList args(raw_args, {"--help", "-h"}, {"--db", "--kind"}, "collage db");
  if (args.Has("--help") || args.Has("-h")) {
    std::printf("%s", kCollageDbHelp);
    return 0;
  }
  const std::vector<std::string>& pos = args.positionals();
  static const std::set<std::string> kNoFile{"stats", "list", "clear"}, kFile{"export", "import"};
  if (pos.empty() || !(kNoFile.count(pos[0]) || kFile.count(pos[0])))
    throw UsageError("db: expected stats, list, clear, export FILE or import FILE" +
                     (pos.empty() ? std::string() : ", got '" + pos[0] + "'") + "\n\n" + kCollageDbHelp);
  size_t wanted = kFile.count(pos[0]) ? 2 : 1;
  if (pos.size() != wanted)
    throw UsageError("db " + pos[0] + ": expected " +
                     (wanted == 2 ? "one FILE" : "no further argument") + ", got " +
                     std::to_string(pos.size() - 1) + " argument(s)\n\n" + kCollageDbHelp);
  if (args.Has("--kind") && pos[0] != "list") throw UsageError("db: --kind is for list");
  std::string path = args.Get("--db", "");
  if (args.Has("--db") && path.empty()) throw UsageError("db: --db needs a path");
  std::string kind = args.Get("--kind", "");
  if (!kind.empty() && kind != "kernel" && kind != "program" && kind != "launch")
    throw UsageError("db list: --kind is kernel, program or launch, got '" + kind + "'");
  // Only import writes into a database that is not there yet.
  collage::CostDatabase db(path.empty() ? collage::CostDatabase::DefaultPath() : path,
                           pos[0] == "import" ? collage::CostDatabase::Open::kCreate
                                              : collage::CostDatabase::Open::kExisting);
  if (pos[0] == "stats") return Stats(db);
  if (pos[0] == "list") return List(db, kind);
  if (pos[0] == "clear") {
    std::printf("removed %zu record(s) from %s\n", db.Clear(), db.path().c_str());
    return 0;
  }
  if (pos[0] == "export") {
    size_t n = db.Export(pos[1]);
    std::printf("wrote %zu record(s) to %s\n", n, pos[1].c_str());
    return 0;
  }
  size_t added = db.Import(pos[1]);
  std::printf("added %zu new record(s) to %s\n", added, db.path().c_str());
  return 0;
}

}  // namespace tessera::cli
