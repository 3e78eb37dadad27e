// CostDatabase: Collage's persistent store of measured costs (SQLite, WAL mode), keyed by
// the workload's structure, the target, the machine's fingerprint and the cost model, so
// a second build measures nothing and other models reuse every shared kernel shape.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessera::collage {

/// What a cost is stored under. Two workloads with the same hash but different text (a
/// collision) never share a cost: lookups compare the stored text.
struct CostKey {
  std::string workload;     ///< the candidate module's text without constant data
  std::string target;       ///< the target string it was measured for
  std::string fingerprint;  ///< the machine fingerprint's hash (FingerprintHash)
  std::string cost_model;   ///< the estimator and the settings that change its numbers
  std::string hash;         ///< SHA-256 of `workload`; computed when empty
};

/// One stored measurement.
struct CostRecord {
  CostKey key;
  std::string kind = "kernel";  ///< "kernel" (a candidate), "program" (a whole model), "launch"
  std::string label;            ///< a short description for listings ("conv2d+add+relu")
  double cost = std::numeric_limits<double>::quiet_NaN();  ///< seconds; +inf: invalid
  double spread = std::numeric_limits<double>::quiet_NaN();  ///< seconds, 10th to 90th percentile
  int64_t repeats = 0;      ///< timed samples behind `cost`
  int64_t measured_at = 0;  ///< unix seconds
  std::string error;        ///< why the workload cannot run (when `cost` is +inf)
};

/// What a database holds.
struct CostDatabaseStats {
  std::string path;
  int64_t records = 0;
  int64_t invalid = 0;
  int64_t bytes = 0;                         ///< the file's size (pages in use)
  std::map<std::string, int64_t> by_kind;    ///< records per kind
  std::map<std::string, int64_t> by_target;  ///< records per target
  /// Records per machine fingerprint hash, with the fingerprint's text where known.
  std::map<std::string, std::pair<int64_t, std::string>> by_fingerprint;
};

/// A cost database file. Safe to share between threads and processes: every write is one
/// transaction, waits up to `busy_timeout_ms` for another writer, and keeps the record
/// already stored for a key (the first measurement wins, so concurrent builds agree). A
/// damaged database is moved aside to `<path>.corrupt` (`.corrupt.1`, ... when taken) with
/// a warning and a new one is created in its place; a file that is not an SQLite database
/// at all is an IO error and is left alone.
class CostDatabase {
 public:
  /// How a missing file is treated.
  enum class Open {
    kCreate,          ///< create it (its folder must exist)
    kCreateWithDirs,  ///< create it and its folders (the default place)
    kExisting,        ///< a not-found error (for commands that only read)
  };
  /// Opens the database at `path` ("~/" means $HOME). IO error when it cannot be opened
  /// or written, or is not an SQLite file.
  explicit CostDatabase(const std::string& path, Open open = Open::kCreate,
                        int busy_timeout_ms = 60000);
  ~CostDatabase();
  CostDatabase(const CostDatabase&) = delete;
  CostDatabase& operator=(const CostDatabase&) = delete;

  /// The file.
  const std::string& path() const;
  /// The stored record for each key, or nullopt (none, or a hash collision: logged).
  std::vector<std::optional<CostRecord>> Lookup(const std::vector<CostKey>& keys);
  /// Stores `records` in one transaction, keeping existing records of the same keys;
  /// records with an unknown (NaN) cost are skipped. Returns how many were added.
  size_t Insert(const std::vector<CostRecord>& records);
  /// Remembers the readable text of a fingerprint (shown by stats and export).
  void AddFingerprint(const std::string& hash, const std::string& text);
  /// Every record, oldest first.
  std::vector<CostRecord> List();
  /// Counts by kind, target and fingerprint, and the file's size.
  CostDatabaseStats Stats();
  /// Removes every record; returns how many.
  size_t Clear();
  /// Writes every record to `file` as JSON lines (one object per record, with its
  /// fingerprint's text); returns how many.
  size_t Export(const std::string& file);
  /// Adds the records of a JSON-lines file Export wrote (existing keys kept); returns how
  /// many were new. A malformed line is a value error naming the file and line; nothing
  /// is added then.
  size_t Import(const std::string& file);

  /// `$TESSERA_CACHE_DIR/collage.db` (else the native compiler's cache directory).
  static std::string DefaultPath();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The config key collage.cost_db resolved: "auto" gives DefaultPath() (created with its
/// folders), "" none (nullptr), anything else that file (its folder must exist);
/// databases are shared per path within the process.
std::shared_ptr<CostDatabase> OpenCostDatabase(const std::string& config_value);

}  // namespace tessera::collage
