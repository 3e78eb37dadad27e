// tessera._core.collage over the C API: CostDatabase (Collage's store of measured costs) and
// machine fingerprints.
#include <cmath>
#include <string>
#include <vector>

#include "core_glue.h"

namespace tessera_py {

namespace {

/// collage.CostDatabase: an open database file.
struct PyCostDatabase {
  Shared<TsCostDatabase, TsCostDatabaseDestroy> handle;
};

using Target = Shared<TsTarget, TsTargetDestroy>;
using RecordList = Shared<TsCostRecordList, TsCostRecordListDestroy>;

py::dict RecordToPy(const TsCostRecord& r) {
  py::dict d;
  d["hash"] = Str(r.hash);
  d["kind"] = Str(r.kind);
  d["label"] = Str(r.label);
  d["target"] = Str(r.target);
  d["fingerprint"] = Str(r.fingerprint);
  d["cost_model"] = Str(r.cost_model);
  d["cost"] = r.cost;  // seconds; inf when invalid
  d["spread"] = std::isnan(r.spread) ? py::object(py::none()) : py::object(py::float_(r.spread));
  d["repeats"] = r.repeats;
  d["measured_at"] = r.measured_at;
  d["error"] = Str(r.error);
  d["workload"] = Str(r.workload);
  return d;
}

/// The database's statistics, from the C API's JSON.
py::dict Stats(const PyCostDatabase& db) {
  py::dict json = FromJson(Text([&](TsStringCallback cb, void* u) {
    return TsCostDatabaseGetStats(db.handle.get(), cb, u);
  }));
  // In the order the old binding gave them (JSON objects come back sorted by key).
  py::dict d;
  for (const char* key :
       {"path", "records", "invalid", "bytes", "by_kind", "by_target", "by_fingerprint"})
    d[key] = json[key];
  return d;
}

/// The submodule `collage` of `parent`, made on first use (BindCollage, BindCollageSearch
/// and BindCostDatabase all fill it, in any order).
py::module_ CollageModule(py::module_& parent) {
  if (py::hasattr(parent, "collage")) return parent.attr("collage").cast<py::module_>();
  return parent.def_submodule("collage", "Collage candidate partitions");
}

}  // namespace

void BindCostDatabase(py::module_& parent) {
  py::module_ m = CollageModule(parent);
  auto path_of = [](const PyCostDatabase& db) {
    return StringOf(TsCostDatabaseGetPath(db.handle.get()));
  };
  py::class_<PyCostDatabase>(
      m, "CostDatabase",
      "Collage's SQLite store of measured costs (collage.cost_db). CostDatabase() opens the "
      "default one ($TESSERA_CACHE_DIR/collage.db); CostDatabase(path) another.")
      .def(py::init([](const py::object& path) {
             // None: the default database (its folders created); else a str or os.PathLike.
             std::string text;
             if (!path.is_none())
               text = py::str(py::module_::import("os").attr("fspath")(path)).cast<std::string>();
             TsCostDatabase out = nullptr;
             Check(TsCostDatabaseOpen(path.is_none() ? nullptr : text.c_str(), &out));
             PyCostDatabase db;
             db.handle = decltype(db.handle)(out);
             return db;
           }),
           py::arg("path") = py::none())
      .def_property_readonly("path", path_of, "The database file.")
      .def("stats", &Stats,
           "Counts by kind, target and machine fingerprint, and the file's size in bytes.")
      .def(
          "records",
          [](const PyCostDatabase& db) {
            TsCostRecordList raw = nullptr;
            Check(TsCostDatabaseListRecords(db.handle.get(), &raw));
            RecordList list(raw);
            py::list out;
            for (size_t i = 0; i < TsCostRecordListGetNumRecords(list.get()); ++i) {
              TsCostRecord record{};
              Check(TsCostRecordListGetRecord(list.get(), i, &record));
              out.append(RecordToPy(record));
            }
            return out;
          },
          "Every record as a dict (cost and spread in seconds; cost inf when invalid), oldest "
          "first.")
      .def("__len__", [](const PyCostDatabase& db) { return Stats(db)["records"].cast<size_t>(); })
      .def(
          "clear",
          [](const PyCostDatabase& db) {
            size_t removed = 0;
            Check(TsCostDatabaseClear(db.handle.get(), &removed));
            return removed;
          },
          "Removes every record; returns how many.")
      .def(
          "export",
          [](const PyCostDatabase& db, const std::string& path) {
            size_t count = 0;
            Check(TsCostDatabaseExport(db.handle.get(), path.c_str(), &count));
            return count;
          },
          py::arg("path"), "Writes the records to `path` as JSON lines; returns how many.")
      .def(
          "import_",
          [](const PyCostDatabase& db, const std::string& path) {
            size_t added = 0;
            Check(TsCostDatabaseImport(db.handle.get(), path.c_str(), &added));
            return added;
          },
          py::arg("path"),
          "Adds the records of a file export() wrote (existing ones kept); returns how many "
          "were new.")
      .def("__repr__",
           [path_of](const PyCostDatabase& db) { return "CostDatabase('" + path_of(db) + "')"; });

  m.def(
      "machine_fingerprint",
      [](const std::vector<std::string>& targets) {
        std::vector<Target> owned;
        std::vector<TsTarget> handles;
        for (const std::string& t : targets) {
          TsTarget out = nullptr;
          Check(TsTargetParse(t.c_str(), &out));
          owned.emplace_back(out);
          handles.push_back(out);
        }
        return Text([&](TsStringCallback cb, void* u) {
          return TsCollageMachineFingerprint(handles.data(), handles.size(), cb, u);
        });
      },
      py::arg("targets"),
      "The text costs measured for `targets` here are stored under (CPU, ISA, threads, backend "
      "versions).");
  m.def(
      "runner_fingerprint",
      [](const std::string& targets) {
        return Text([&](TsStringCallback cb, void* u) {
          return TsCollageRunnerFingerprint(targets.c_str(), cb, u);
        });
      },
      py::arg("targets"),
      "What measuring a saved program for `targets` (';'-separated text) depends on where it "
      "runs (a Dask worker must match the driver's).");
  m.def(
      "fingerprint_hash",
      [](const std::string& text) {
        return Text([&](TsStringCallback cb, void* u) {
          return TsCollageFingerprintHash(text.c_str(), cb, u);
        });
      },
      py::arg("text"), "The short hash of a fingerprint's text (what records store).");
}

}  // namespace tessera_py
