// The C API's Collage cost database (open, stats, records, clear, export, import) and
// machine fingerprints.
#include <string>
#include <vector>

#include "c_api_collage_internal.h"
#include "tessera/collage/fingerprint.h"

using namespace tessera::capi;
using namespace tessera::collage;

extern "C" {

TsStatus TsCostDatabaseOpen(const char* path, TsCostDatabase* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    std::shared_ptr<CostDatabase> db =
        path ? std::make_shared<CostDatabase>(path, CostDatabase::Open::kCreate)
             : std::make_shared<CostDatabase>(CostDatabase::DefaultPath(),
                                              CostDatabase::Open::kCreateWithDirs);
    *out = new TsCostDatabase_{std::move(db)};
  });
}

TsStringRef TsCostDatabaseGetPath(TsCostDatabase db) {
  return db ? RefOf(db->db->path()) : TsStringRef{nullptr, 0};
}

TsStatus TsCostDatabaseGetStats(TsCostDatabase db, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(db);
  TS_REQUIRE(callback);
  return Guard([&] {
    CostDatabaseStats st = db->db->Stats();
    nlohmann::json fingerprints = nlohmann::json::object();
    for (const auto& [hash, entry] : st.by_fingerprint)
      fingerprints[hash] = {{"records", entry.first}, {"text", entry.second}};
    nlohmann::json j = {{"path", st.path},
                        {"records", st.records},
                        {"invalid", st.invalid},
                        {"bytes", st.bytes},
                        {"by_kind", st.by_kind},
                        {"by_target", st.by_target},
                        {"by_fingerprint", fingerprints}};
    Emit(j.dump(), callback, user_data);
  });
}

TsStatus TsCostDatabaseListRecords(TsCostDatabase db, TsCostRecordList* out) {
  TS_REQUIRE(db);
  TS_REQUIRE(out);
  return Guard([&] { *out = new TsCostRecordList_{db->db->List()}; });
}

TsStatus TsCostDatabaseClear(TsCostDatabase db, size_t* removed) {
  TS_REQUIRE(db);
  return Guard([&] {
    size_t n = db->db->Clear();
    if (removed) *removed = n;
  });
}

TsStatus TsCostDatabaseExport(TsCostDatabase db, const char* path, size_t* count) {
  TS_REQUIRE(db);
  TS_REQUIRE(path);
  return Guard([&] {
    size_t n = db->db->Export(path);
    if (count) *count = n;
  });
}

TsStatus TsCostDatabaseImport(TsCostDatabase db, const char* path, size_t* added) {
  TS_REQUIRE(db);
  TS_REQUIRE(path);
  return Guard([&] {
    size_t n = db->db->Import(path);
    if (added) *added = n;
  });
}

void TsCostDatabaseDestroy(TsCostDatabase db) {
  delete db;
}

size_t TsCostRecordListGetNumRecords(TsCostRecordList list) {
  return list ? list->records.size() : 0;
}

TsStatus TsCostRecordListGetRecord(TsCostRecordList list, size_t index, TsCostRecord* out) {
  TS_REQUIRE(list);
  TS_REQUIRE(out);
  return Guard([&] {
    CheckIndex(index, list->records.size(), "TsCostRecordListGetRecord: record");
    const CostRecord& r = list->records[index];
    *out = TsCostRecord{RefOf(r.key.hash),
                        RefOf(r.kind),
                        RefOf(r.label),
                        RefOf(r.key.target),
                        RefOf(r.key.fingerprint),
                        RefOf(r.key.cost_model),
                        RefOf(r.key.workload),
                        RefOf(r.error),
                        r.cost,
                        r.spread,
                        r.repeats,
                        r.measured_at};
  });
}

void TsCostRecordListDestroy(TsCostRecordList list) {
  delete list;
}

TsStatus TsCollageMachineFingerprint(const TsTarget* targets, size_t num_targets,
                                     TsStringCallback callback, void* user_data) {
  TS_REQUIRE(callback);
  return Guard([&] {
    Emit(MachineFingerprint(TargetsFromC(targets, num_targets, "TsCollageMachineFingerprint")),
         callback, user_data);
  });
}

TsStatus TsCollageRunnerFingerprint(const char* targets_text, TsStringCallback callback,
                                    void* user_data) {
  TS_REQUIRE(targets_text);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(RunnerFingerprint(targets_text), callback, user_data); });
}

TsStatus TsCollageFingerprintHash(const char* text, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(text);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(FingerprintHash(text), callback, user_data); });
}

}  // extern "C"
