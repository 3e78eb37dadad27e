// The SQLite cost database: schema, lookups that check for hash collisions, batched
// first-writer-wins inserts, and JSON-lines export and import.
#include "tessera/collage/cost_database.h"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "tessera/backend/native/compiler.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"
#include "tessera/support/sha256.h"

namespace tessera::collage {

namespace {

using json = nlohmann::ordered_json;

constexpr int kSchemaVersion = 1;

const char* const kSchema = R"(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS costs(
  hash TEXT NOT NULL, target TEXT NOT NULL, fingerprint TEXT NOT NULL, cost_model TEXT NOT NULL,
  kind TEXT NOT NULL, label TEXT NOT NULL, workload TEXT NOT NULL,
  cost REAL, spread REAL, repeats INTEGER NOT NULL, measured_at INTEGER NOT NULL,
  error TEXT NOT NULL,
  PRIMARY KEY (hash, target, fingerprint, cost_model)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS fingerprints(hash TEXT PRIMARY KEY, text TEXT NOT NULL);
)";

const char* const kColumns =
    "hash, target, fingerprint, cost_model, kind, label, workload, cost, spread, repeats, "
    "measured_at, error";

/// A failure of SQLite: `code` tells corrupt files apart.
struct SqliteError {
  int code;
  std::string message;
};

/// One prepared statement, finalized on scope exit.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
      throw SqliteError{sqlite3_extended_errcode(db), sqlite3_errmsg(db)};
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void Bind(int i, const std::string& v) {
    Check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  void Bind(int i, int64_t v) { Check(sqlite3_bind_int64(stmt_, i, v)); }
  /// Binds a REAL, or NULL for NaN and infinities (SQLite has no way to say them).
  void BindReal(int i, double v) {
    Check(std::isfinite(v) ? sqlite3_bind_double(stmt_, i, v) : sqlite3_bind_null(stmt_, i));
  }
  /// Steps once: true when a row is ready.
  bool Step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw SqliteError{sqlite3_extended_errcode(db_), sqlite3_errmsg(db_)};
  }
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::string Text(int i) {
    const unsigned char* p = sqlite3_column_text(stmt_, i);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_, i)))
             : std::string();
  }
  int64_t Int(int i) { return sqlite3_column_int64(stmt_, i); }
  bool IsNull(int i) { return sqlite3_column_type(stmt_, i) == SQLITE_NULL; }
  double Real(int i) { return sqlite3_column_double(stmt_, i); }

 private:
  void Check(int rc) {
    if (rc != SQLITE_OK) throw SqliteError{sqlite3_extended_errcode(db_), sqlite3_errmsg(db_)};
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

void Exec(sqlite3* db, const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    SqliteError e{sqlite3_extended_errcode(db), message ? message : sqlite3_errmsg(db)};
    sqlite3_free(message);
    throw e;
  }
}

bool IsCorrupt(int code) {
  int primary = code & 0xff;
  return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
}

std::string HashOf(const CostKey& key) { return key.hash.empty() ? Sha256Hex(key.workload) : key.hash; }

/// The record of the row `s` is on (columns in kColumns order).
CostRecord ReadRecord(Statement& s) {
  CostRecord r;
  r.key.hash = s.Text(0);
  r.key.target = s.Text(1);
  r.key.fingerprint = s.Text(2);
  r.key.cost_model = s.Text(3);
  r.kind = s.Text(4);
  r.label = s.Text(5);
  r.key.workload = s.Text(6);
  r.error = s.Text(11);
  r.cost = s.IsNull(7) ? (r.error.empty() ? std::nan("") : INFINITY) : s.Real(7);
  r.spread = s.IsNull(8) ? std::nan("") : s.Real(8);
  r.repeats = s.Int(9);
  r.measured_at = s.Int(10);
  return r;
}

json RealOrNull(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

}  // namespace

struct CostDatabase::Impl {
  std::string path;
  sqlite3* db = nullptr;
  std::mutex mutex;

  ~Impl() { Close(); }
  void Close() {
    if (db) sqlite3_close_v2(db);
    db = nullptr;
  }

  [[noreturn]] void Fail(const std::string& what, const SqliteError& e) const {
    TS_THROW(kIO) << "cost database '" << path << "': " << what << ": " << e.message;
  }

  void Open(int busy_timeout_ms) {
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        nullptr) != SQLITE_OK) {
      SqliteError e{db ? sqlite3_extended_errcode(db) : SQLITE_CANTOPEN,
                    db ? sqlite3_errmsg(db) : "out of memory"};
      Close();
      throw e;
    }
    sqlite3_busy_timeout(db, busy_timeout_ms);
    // WAL: readers never block the writer and a killed writer leaves every committed
    // transaction intact; NORMAL sync is durable across process crashes.
    Exec(db, "PRAGMA journal_mode=WAL");
    Exec(db, "PRAGMA synchronous=NORMAL");
    Exec(db, "BEGIN IMMEDIATE");
    try {
      Exec(db, kSchema);
      Statement get(db, "SELECT value FROM meta WHERE key = 'schema_version'");
      if (get.Step()) {
        int version = std::atoi(get.Text(0).c_str());
        if (version > kSchemaVersion)
          TS_THROW(kUnsupported) << "cost database '" << path << "' has schema version " << version
                                 << ", newer than this Tessera's (" << kSchemaVersion << ")";
      } else {
        Statement put(db, "INSERT INTO meta(key, value) VALUES ('schema_version', ?)");
        put.Bind(1, std::to_string(kSchemaVersion));
        put.Step();
      }
      // A damaged file often reads fine until a page in the middle is touched.
      Statement check(db, "PRAGMA quick_check(1)");
      if (check.Step() && check.Text(0) != "ok") throw SqliteError{SQLITE_CORRUPT, check.Text(0)};
      Exec(db, "COMMIT");
    } catch (...) {
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }

  /// Runs `body` inside one write transaction, rolled back when it throws.
  template <typename F>
  auto Write(const std::string& what, F body) {
    std::lock_guard<std::mutex> lock(mutex);
    try {
      Exec(db, "BEGIN IMMEDIATE");
      try {
        auto result = body();
        Exec(db, "COMMIT");
        return result;
      } catch (...) {
        sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
      }
    } catch (const SqliteError& e) {
      Fail(what, e);
    }
  }

  size_t InsertLocked(const std::vector<CostRecord>& records) {
    Statement ins(db, std::string("INSERT OR IGNORE INTO costs(") + kColumns +
                          ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
    size_t added = 0;
    for (const CostRecord& r : records) {
      if (std::isnan(r.cost)) continue;
      ins.Bind(1, HashOf(r.key));
      ins.Bind(2, r.key.target);
      ins.Bind(3, r.key.fingerprint);
      ins.Bind(4, r.key.cost_model);
      ins.Bind(5, r.kind);
      ins.Bind(6, r.label);
      ins.Bind(7, r.key.workload);
      ins.BindReal(8, r.cost);
      ins.BindReal(9, r.spread);
      ins.Bind(10, r.repeats);
      ins.Bind(11, r.measured_at);
      ins.Bind(12, std::isinf(r.cost) && r.error.empty() ? std::string("invalid") : r.error);
      ins.Step();
      added += static_cast<size_t>(sqlite3_changes(db));
      ins.Reset();
    }
    return added;
  }
};

namespace {

std::string ExpandHome(const std::string& path) {
  if (path.rfind("~/", 0) != 0) return path;
  const char* home = std::getenv("HOME");
  return home && *home ? std::string(home) + path.substr(1) : path;
}

/// Whether the file at `path` starts as every SQLite database does (or is empty).
bool LooksLikeSqlite(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[16] = {};
  in.read(header, sizeof header);
  if (in.gcount() == 0) return true;  // empty: SQLite makes it a database
  return in.gcount() == 16 && std::memcmp(header, "SQLite format 3", 16) == 0;
}

}  // namespace

CostDatabase::CostDatabase(const std::string& given_path, Open open, int busy_timeout_ms)
    : impl_(new Impl) {
  if (given_path.empty()) TS_THROW(kValue) << "cost database: the path is empty";
  const std::string path = ExpandHome(given_path);
  impl_->path = path;
  std::error_code ec;
  namespace fs = std::filesystem;
  if (!fs::exists(path, ec)) {
    if (open == Open::kExisting)
      TS_THROW(kNotFound) << "no cost database at '" << path
                          << "' (Collage creates it on its first measuring build)";
    fs::path parent = fs::path(path).parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec)) {
      if (open != Open::kCreateWithDirs)
        TS_THROW(kIO) << "cost database '" << path << "': the folder '" << parent.string()
                      << "' does not exist";
      fs::create_directories(parent, ec);
    }
  } else if (!fs::is_regular_file(path, ec) || !LooksLikeSqlite(path)) {
    TS_THROW(kIO) << "'" << path << "' is not a cost database (not an SQLite file); it was left "
                  << "alone: give another path";
  }
  // Two processes opening a new database at once race to switch it to WAL and create the
  // tables; SQLite answers the loser "busy" without waiting, so it tries again.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
  auto open_db = [&] {
    for (int attempt = 0;; ++attempt) {
      try {
        impl_->Open(busy_timeout_ms);
        return;
      } catch (const SqliteError& e) {
        impl_->Close();
        int primary = e.code & 0xff;
        if ((primary != SQLITE_BUSY && primary != SQLITE_LOCKED) ||
            std::chrono::steady_clock::now() >= deadline)
          throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(std::min(5 + 5 * attempt, 100)));
      }
    }
  };
  try {
    open_db();
  } catch (const SqliteError& e) {
    impl_->Close();
    if (!IsCorrupt(e.code))
      TS_THROW(kIO) << "cost database '" << path << "': cannot open: " << e.message;
    // Keep the damaged file for inspection and start afresh: costs can be measured again.
    std::string aside = path + ".corrupt";
    for (int n = 1; fs::exists(aside, ec); ++n) aside = path + ".corrupt." + std::to_string(n);
    fs::rename(path, aside, ec);
    for (const char* suffix : {"-wal", "-shm"}) fs::remove(path + suffix, ec);
    LogWarn("cost database '" + path + "' is damaged (" + e.message + "); moved it to '" + aside +
            "' and started a new one");
    try {
      open_db();
    } catch (const SqliteError& again) {
      impl_->Close();
      TS_THROW(kIO) << "cost database '" << path << "': cannot create: " << again.message;
    }
  }
}

CostDatabase::~CostDatabase() = default;

const std::string& CostDatabase::path() const { return impl_->path; }

std::vector<std::optional<CostRecord>> CostDatabase::Lookup(const std::vector<CostKey>& keys) {
  std::vector<std::optional<CostRecord>> out(keys.size());
  std::lock_guard<std::mutex> lock(impl_->mutex);
  try {
    Statement s(impl_->db, std::string("SELECT ") + kColumns +
                               " FROM costs WHERE hash = ? AND target = ? AND fingerprint = ? AND "
                               "cost_model = ?");
    for (size_t i = 0; i < keys.size(); ++i) {
      s.Bind(1, HashOf(keys[i]));
      s.Bind(2, keys[i].target);
      s.Bind(3, keys[i].fingerprint);
      s.Bind(4, keys[i].cost_model);
      if (s.Step()) {
        CostRecord r = ReadRecord(s);
        if (r.key.workload == keys[i].workload)
          out[i] = std::move(r);
        else
          LogWarn("cost database '" + impl_->path + "': hash collision on " + r.key.hash +
                  " (different workloads); measuring again");
      }
      s.Reset();
    }
  } catch (const SqliteError& e) {
    impl_->Fail("lookup failed", e);
  }
  return out;
}

size_t CostDatabase::Insert(const std::vector<CostRecord>& records) {
  return impl_->Write("insert failed", [&] { return impl_->InsertLocked(records); });
}

void CostDatabase::AddFingerprint(const std::string& hash, const std::string& text) {
  impl_->Write("insert failed", [&] {
    Statement s(impl_->db, "INSERT OR IGNORE INTO fingerprints(hash, text) VALUES (?, ?)");
    s.Bind(1, hash);
    s.Bind(2, text);
    s.Step();
    return 0;
  });
}

std::vector<CostRecord> CostDatabase::List() {
  std::vector<CostRecord> out;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  try {
    Statement s(impl_->db, std::string("SELECT ") + kColumns +
                               " FROM costs ORDER BY measured_at, hash, target, fingerprint, cost_model");
    while (s.Step()) out.push_back(ReadRecord(s));
  } catch (const SqliteError& e) {
    impl_->Fail("listing failed", e);
  }
  return out;
}

CostDatabaseStats CostDatabase::Stats() {
  CostDatabaseStats st;
  st.path = impl_->path;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  try {
    sqlite3* db = impl_->db;
    {
      Statement s(db, "SELECT count(*), coalesce(sum(cost IS NULL), 0) FROM costs");
      s.Step();
      st.records = s.Int(0);
      st.invalid = s.Int(1);
    }
    {
      Statement s(db, "SELECT kind, count(*) FROM costs GROUP BY kind ORDER BY kind");
      while (s.Step()) st.by_kind[s.Text(0)] = s.Int(1);
    }
    {
      Statement s(db, "SELECT target, count(*) FROM costs GROUP BY target ORDER BY target");
      while (s.Step()) st.by_target[s.Text(0)] = s.Int(1);
    }
    {
      Statement s(db,
                  "SELECT c.fingerprint, count(*), coalesce(f.text, '') FROM costs c LEFT JOIN "
                  "fingerprints f ON f.hash = c.fingerprint GROUP BY c.fingerprint ORDER BY c.fingerprint");
      while (s.Step()) st.by_fingerprint[s.Text(0)] = {s.Int(1), s.Text(2)};
    }
    {
      Statement s(db, "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()");
      if (s.Step()) st.bytes = s.Int(0);
    }
  } catch (const SqliteError& e) {
    impl_->Fail("stats failed", e);
  }
  return st;
}

size_t CostDatabase::Clear() {
  size_t removed = impl_->Write("clear failed", [&] {
    Exec(impl_->db, "DELETE FROM costs");
    size_t n = static_cast<size_t>(sqlite3_changes(impl_->db));
    Exec(impl_->db, "DELETE FROM fingerprints");
    return n;
  });
  std::lock_guard<std::mutex> lock(impl_->mutex);
  sqlite3_exec(impl_->db, "VACUUM", nullptr, nullptr, nullptr);  // best effort: shrinks the file
  return removed;
}

size_t CostDatabase::Export(const std::string& file) {
  std::vector<CostRecord> records = List();
  std::map<std::string, std::string> texts;
  for (const auto& [hash, entry] : Stats().by_fingerprint) texts[hash] = entry.second;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) TS_THROW(kIO) << "cost database export: cannot write '" << file << "'";
  for (const CostRecord& r : records) {
    json j;
    j["hash"] = r.key.hash;
    j["target"] = r.key.target;
    j["fingerprint"] = r.key.fingerprint;
    j["fingerprint_text"] = texts[r.key.fingerprint];
    j["cost_model"] = r.key.cost_model;
    j["kind"] = r.kind;
    j["label"] = r.label;
    j["cost_s"] = RealOrNull(r.cost);
    j["spread_s"] = RealOrNull(r.spread);
    j["repeats"] = r.repeats;
    j["measured_at"] = r.measured_at;
    j["error"] = r.error;
    j["workload"] = r.key.workload;
    out << j.dump() << "\n";
  }
  out.flush();
  if (!out) TS_THROW(kIO) << "cost database export: writing '" << file << "' failed";
  return records.size();
}

size_t CostDatabase::Import(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) TS_THROW(kNotFound) << "cost database import: cannot read '" << file << "'";
  std::vector<CostRecord> records;
  std::map<std::string, std::string> texts;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto where = [&] { return "cost database import: " + file + ":" + std::to_string(number) + ": "; };
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) TS_THROW(kParse) << where() << "not a JSON object";
    auto text = [&](const char* name) -> std::string {
      auto it = j.find(name);
      if (it == j.end() || !it->is_string())
        TS_THROW(kParse) << where() << "'" << name << "' must be a string";
      return it->get<std::string>();
    };
    auto number_or_null = [&](const char* name) -> double {
      auto it = j.find(name);
      if (it == j.end() || it->is_null()) return std::nan("");
      if (!it->is_number()) TS_THROW(kParse) << where() << "'" << name << "' must be a number or null";
      return it->get<double>();
    };
    auto integer = [&](const char* name) -> int64_t {
      auto it = j.find(name);
      if (it == j.end() || !it->is_number_integer())
        TS_THROW(kParse) << where() << "'" << name << "' must be an integer";
      return it->get<int64_t>();
    };
    CostRecord r;
    r.key.workload = text("workload");
    r.key.hash = text("hash");
    if (r.key.hash != Sha256Hex(r.key.workload))
      TS_THROW(kParse) << where() << "'hash' is not the SHA-256 of 'workload'";
    r.key.target = text("target");
    r.key.fingerprint = text("fingerprint");
    r.key.cost_model = text("cost_model");
    r.kind = text("kind");
    r.label = text("label");
    r.error = text("error");
    r.cost = number_or_null("cost_s");
    if (std::isnan(r.cost)) {
      if (r.error.empty()) TS_THROW(kParse) << where() << "'cost_s' is null but 'error' is empty";
      r.cost = INFINITY;
    } else if (!(r.cost >= 0)) {
      TS_THROW(kParse) << where() << "'cost_s' must be >= 0";
    }
    r.spread = number_or_null("spread_s");
    r.repeats = integer("repeats");
    r.measured_at = integer("measured_at");
    if (auto it = j.find("fingerprint_text"); it != j.end() && it->is_string() && !it->get<std::string>().empty())
      texts[r.key.fingerprint] = it->get<std::string>();
    records.push_back(std::move(r));
  }
  return impl_->Write("import failed", [&] {
    Statement s(impl_->db, "INSERT OR IGNORE INTO fingerprints(hash, text) VALUES (?, ?)");
    for (const auto& [hash, t] : texts) {
      s.Bind(1, hash);
      s.Bind(2, t);
      s.Step();
      s.Reset();
    }
    return impl_->InsertLocked(records);
  });
}

std::string CostDatabase::DefaultPath() { return native::CacheDirectory() + "/collage.db"; }

std::shared_ptr<CostDatabase> OpenCostDatabase(const std::string& config_value) {
  if (config_value.empty()) return nullptr;
  bool default_place = config_value == "auto";
  std::string path = default_place ? CostDatabase::DefaultPath() : ExpandHome(config_value);
  static std::mutex mutex;
  static auto* open = new std::map<std::string, std::weak_ptr<CostDatabase>>();
  std::lock_guard<std::mutex> lock(mutex);
  if (auto db = (*open)[path].lock()) return db;
  auto db = std::make_shared<CostDatabase>(
      path, default_place ? CostDatabase::Open::kCreateWithDirs : CostDatabase::Open::kCreate);
  (*open)[path] = db;
  return db;
}

}  // namespace tessera::collage
