// Collage's cost database: round trips, keys (fingerprint, cost model, hash collisions),
// first-writer-wins, export/import, damaged files, and two processes writing at once or
// one killed mid-transaction.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tessera/collage/cost_database.h"
#include "tessera/collage/fingerprint.h"
#include "tessera/support/error.h"

namespace tessera::collage {
namespace {

namespace fs = std::filesystem;

/// A fresh directory under the system's temp dir, removed afterwards.
class CostDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tessera_cost_db_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

CostRecord Record(const std::string& workload, double cost, const std::string& fingerprint = "fp1") {
  CostRecord r;
  r.key = CostKey{workload, "native", fingerprint, "measure/1 p50 cold", ""};
  r.label = "native:" + workload;
  r.cost = cost;
  r.spread = cost / 10;
  r.repeats = 9;
  r.measured_at = 1700000000;
  return r;
}

TEST_F(CostDbTest, RoundTripAndKeys) {
  CostDatabase db(Path("a/b/costs.db"), CostDatabase::Open::kCreateWithDirs);
  CostRecord ok = Record("def @main() { add }", 1.5e-5);
  CostRecord bad = Record("def @main() { conv }", INFINITY);
  bad.error = "build failed: no";
  EXPECT_EQ(db.Insert({ok, bad}), 2u);

  auto found = db.Lookup({ok.key, bad.key});
  ASSERT_TRUE(found[0]);
  EXPECT_DOUBLE_EQ(found[0]->cost, 1.5e-5);
  EXPECT_DOUBLE_EQ(found[0]->spread, 1.5e-6);
  EXPECT_EQ(found[0]->repeats, 9);
  EXPECT_EQ(found[0]->measured_at, 1700000000);
  EXPECT_EQ(found[0]->label, ok.label);
  EXPECT_EQ(found[0]->kind, "kernel");
  ASSERT_TRUE(found[1]);
  EXPECT_TRUE(std::isinf(found[1]->cost));
  EXPECT_EQ(found[1]->error, "build failed: no");

  // Another machine, cost model or target: a miss.
  CostKey other_machine = ok.key, other_model = ok.key, other_target = ok.key;
  other_machine.fingerprint = "fp2";
  other_model.cost_model = "measure/1 p90 cold";
  other_target.target = "native -num_threads=1";
  for (const auto& r : db.Lookup({other_machine, other_model, other_target})) EXPECT_FALSE(r);

  // Unknown costs are not stored; the first record of a key stays.
  EXPECT_EQ(db.Insert({Record("x", std::nan(""))}), 0u);
  EXPECT_EQ(db.Insert({Record("def @main() { add }", 9.0)}), 0u);
  EXPECT_DOUBLE_EQ(db.Lookup({ok.key})[0]->cost, 1.5e-5);

  CostDatabaseStats st = db.Stats();
  EXPECT_EQ(st.records, 2);
  EXPECT_EQ(st.invalid, 1);
  EXPECT_EQ(st.by_kind["kernel"], 2);
  EXPECT_GT(st.bytes, 0);
  EXPECT_EQ(db.Clear(), 2u);
  EXPECT_EQ(db.Stats().records, 0);
}

TEST_F(CostDbTest, HashCollisionIsAMiss) {
  CostDatabase db(Path("c.db"));
  CostRecord a = Record("workload A", 1e-3);
  a.key.hash = "0000";  // forced: as if A and B hashed alike
  db.Insert({a});
  CostKey b = a.key;
  b.workload = "workload B";
  EXPECT_FALSE(db.Lookup({b})[0]);
  EXPECT_TRUE(db.Lookup({a.key})[0]);
}

TEST_F(CostDbTest, ExportImport) {
  CostDatabase src(Path("src.db"));
  CostRecord bad = Record("w2", INFINITY);
  bad.error = "crashed";
  src.Insert({Record("w1", 2e-4), bad});
  src.AddFingerprint("fp1", "cpu: test\nthreads: 1");
  EXPECT_EQ(src.Export(Path("out.jsonl")), 2u);

  CostDatabase dst(Path("dst.db"));
  EXPECT_EQ(dst.Import(Path("out.jsonl")), 2u);
  EXPECT_EQ(dst.Import(Path("out.jsonl")), 0u);  // already there
  auto found = dst.Lookup({Record("w1", 0).key, bad.key});
  ASSERT_TRUE(found[0] && found[1]);
  EXPECT_DOUBLE_EQ(found[0]->cost, 2e-4);
  EXPECT_TRUE(std::isinf(found[1]->cost));
  EXPECT_EQ(found[1]->error, "crashed");
  EXPECT_EQ(dst.Stats().by_fingerprint["fp1"].second, "cpu: test\nthreads: 1");

  // A malformed line names the file and line, and adds nothing.
  {
    std::ifstream in(Path("out.jsonl"));
    std::string first;
    std::getline(in, first);
    std::ofstream out(Path("bad.jsonl"));
    out << first << "\n{\"hash\": 1}\n";
  }
  CostDatabase third(Path("third.db"));
  try {
    third.Import(Path("bad.jsonl"));
    FAIL() << "expected a parse error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    EXPECT_NE(std::string(e.what()).find("bad.jsonl:2"), std::string::npos) << e.what();
  }
  EXPECT_EQ(third.Stats().records, 0);
  EXPECT_THROW(third.Import(Path("missing.jsonl")), Error);
}

TEST_F(CostDbTest, DamagedFileIsMovedAsideAndRebuilt) {
  // Not SQLite at all (a model, an export given by mistake): an error, the file untouched.
  const std::string text = "this is not a SQLite database, but a user's file";
  {
    std::ofstream out(Path("notes.txt"), std::ios::binary);
    out << text;
  }
  try {
    CostDatabase db(Path("notes.txt"));
    FAIL() << "expected an IO error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIO);
    EXPECT_NE(std::string(e.what()).find("is not a cost database"), std::string::npos) << e.what();
  }
  {
    std::ifstream in(Path("notes.txt"), std::ios::binary);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), text);
  }
  EXPECT_FALSE(fs::exists(Path("notes.txt.corrupt")));
  // An SQLite header over garbage: moved aside (a second time to .corrupt.1), rebuilt.
  for (const char* aside : {"bad.db.corrupt", "bad.db.corrupt.1"}) {
    {
      std::ofstream out(Path("bad.db"), std::ios::binary);
      out.write("SQLite format 3", 16);
      out << std::string(4096, 'x');
    }
    CostDatabase db(Path("bad.db"));
    EXPECT_TRUE(fs::exists(Path(aside))) << aside;
    EXPECT_EQ(db.Insert({Record("w", 1e-3)}), 1u);
  }
  // A missing folder is an error unless asked for; a read-only open needs the file.
  EXPECT_THROW(CostDatabase(Path("no/such/dir/c.db")), Error);
  CostDatabase made(Path("new/dir/c.db"), CostDatabase::Open::kCreateWithDirs);
  try {
    CostDatabase missing(Path("missing.db"), CostDatabase::Open::kExisting);
    FAIL() << "expected a not-found error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
  }
  EXPECT_FALSE(fs::exists(Path("missing.db")));

  // A real database cut in half: opened afresh or a clear IO error, never a crash.
  {
    CostDatabase big(Path("big.db"));
    std::vector<CostRecord> many;
    for (int i = 0; i < 2000; ++i) many.push_back(Record("workload " + std::to_string(i), 1e-3));
    big.Insert(many);
  }
  fs::remove(Path("big.db-wal"));
  fs::remove(Path("big.db-shm"));
  fs::resize_file(Path("big.db"), fs::file_size(Path("big.db")) / 2);
  try {
    CostDatabase cut(Path("big.db"));
    cut.Lookup({Record("workload 1999", 0).key});
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIO) << e.what();
  }
}

/// Runs `body` in a child process; returns its pid.
template <typename F>
pid_t Child(F body) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int code = 0;
    try {
      body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
      code = 1;
    }
    ::_exit(code);
  }
  return pid;
}

int ExitCode(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(CostDbTest, TwoProcessesWriteAtOnce) {
  std::string path = Path("shared.db");
  CostDatabase(path).Insert({});  // created before the children race
  auto writer = [path](int which) {
    CostDatabase db(path);
    for (int batch = 0; batch < 40; ++batch) {
      std::vector<CostRecord> records;
      // Half the keys are shared by both writers, half are each one's own.
      for (int i = 0; i < 10; ++i) {
        std::string w = (i % 2 ? "shared " : "own" + std::to_string(which) + " ") +
                        std::to_string(batch * 10 + i);
        records.push_back(Record(w, which + 1.0));
      }
      db.Insert(records);
      db.Lookup({records[0].key});
    }
  };
  pid_t a = Child([&] { writer(0); });
  pid_t b = Child([&] { writer(1); });
  EXPECT_EQ(ExitCode(a), 0);
  EXPECT_EQ(ExitCode(b), 0);
  CostDatabase db(path);
  EXPECT_EQ(db.Stats().records, 40 * 5 * 3);  // shared once, own twice
  for (const CostRecord& r : db.List()) EXPECT_TRUE(r.cost == 1.0 || r.cost == 2.0);
}

TEST_F(CostDbTest, ProcessesCreatingOneDatabaseAtOnce) {
  // Each round: four processes open a database that does not exist yet, at the same time
  // (switching it to WAL and creating the tables race), and each stores a record.
  for (int round = 0; round < 5; ++round) {
    std::string path = Path("new" + std::to_string(round) + ".db");
    std::vector<pid_t> children;
    for (int which = 0; which < 4; ++which)
      children.push_back(Child([&, which] {
        CostDatabase db(path);
        db.Insert({Record("from " + std::to_string(which), 1.0)});
      }));
    for (pid_t pid : children) EXPECT_EQ(ExitCode(pid), 0) << "round " << round;
    EXPECT_EQ(CostDatabase(path).Stats().records, 4) << "round " << round;
  }
}

TEST_F(CostDbTest, KilledMidTransactionKeepsCommittedRows) {
  std::string path = Path("killed.db");
  std::vector<CostRecord> committed;
  for (int i = 0; i < 50; ++i) committed.push_back(Record("committed " + std::to_string(i), 1e-3));
  CostDatabase(path).Insert(committed);
  pid_t pid = Child([&] {
    CostDatabase db(path);
    for (int round = 0;; ++round) {  // large transactions until killed
      std::vector<CostRecord> many;
      for (int i = 0; i < 20000; ++i)
        many.push_back(Record("big " + std::to_string(round) + " " + std::to_string(i), 1e-3));
      db.Insert(many);
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(pid, SIGKILL);
  EXPECT_EQ(ExitCode(pid), 128 + SIGKILL);
  CostDatabase db(path);
  std::vector<CostKey> keys;
  for (const CostRecord& r : committed) keys.push_back(r.key);
  for (const auto& r : db.Lookup(keys)) EXPECT_TRUE(r);
  // Whole transactions only: the committed rows plus whole rounds of the child.
  EXPECT_EQ((db.Stats().records - 50) % 20000, 0);
  EXPECT_EQ(db.Insert({Record("after", 1e-3)}), 1u);
}

TEST(Fingerprint, NamesWhatCostsDependOn) {
  std::string text = MachineFingerprint({Target::Parse("native -num_threads=1")});
  EXPECT_NE(text.find("cpu: "), std::string::npos);
  EXPECT_NE(text.find("threads: 1"), std::string::npos);
  EXPECT_NE(text.find("backend native: "), std::string::npos);
  EXPECT_NE(text.find("tessera: "), std::string::npos);
  EXPECT_NE(text, MachineFingerprint({Target::Parse("native -num_threads=2")}));
  EXPECT_EQ(FingerprintHash(text).size(), 16u);
  EXPECT_EQ(LocalFingerprintHash("native -num_threads=1"), FingerprintHash(text));
  EXPECT_EQ(LocalFingerprintHash("no_such_backend"), "");
}

}  // namespace
}  // namespace tessera::collage
