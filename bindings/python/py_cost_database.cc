// Bindings of Collage's cost database (tessera._core.collage.CostDatabase) and machine
// fingerprints.
#include <pybind11/stl.h>

#include <cmath>

#include "bindings.h"
#include "tessera/collage/cost_database.h"
#include "tessera/collage/fingerprint.h"
#include "tessera/target/target.h"

namespace tessera::python {

namespace {

using namespace tessera::collage;

py::dict RecordToDict(const CostRecord& r) {
  py::dict d;
  d["hash"] = r.key.hash;
  d["kind"] = r.kind;
  d["label"] = r.label;
  d["target"] = r.key.target;
  d["fingerprint"] = r.key.fingerprint;
  d["cost_model"] = r.key.cost_model;
  d["cost"] = r.cost;  // seconds; inf when invalid
  d["spread"] = std::isnan(r.spread) ? py::object(py::none()) : py::object(py::float_(r.spread));
  d["repeats"] = r.repeats;
  d["measured_at"] = r.measured_at;
  d["error"] = r.error;
  d["workload"] = r.key.workload;
  return d;
}

}  // namespace

void BindCostDatabase(py::module_& m) {
  py::class_<CostDatabase, std::shared_ptr<CostDatabase>>(
      m, "CostDatabase",
      "Collage's SQLite store of measured costs (collage.cost_db). CostDatabase() opens the "
      "default one ($TESSERA_CACHE_DIR/collage.db); CostDatabase(path) another.")
      .def(py::init([](const py::object& path) {
             if (path.is_none())
               return std::make_shared<CostDatabase>(CostDatabase::DefaultPath(),
                                                     CostDatabase::Open::kCreateWithDirs);
             // str or os.PathLike
             std::string text = py::str(py::module_::import("os").attr("fspath")(path));
             return std::make_shared<CostDatabase>(text, CostDatabase::Open::kCreate);
           }),
           py::arg("path") = py::none())
      .def_property_readonly("path", &CostDatabase::path, "The database file.")
      .def(
          "stats",
          [](CostDatabase& db) {
            CostDatabaseStats st = db.Stats();
            py::dict d, fingerprints;
            d["path"] = st.path;
            d["records"] = st.records;
            d["invalid"] = st.invalid;
            d["bytes"] = st.bytes;
            d["by_kind"] = st.by_kind;
            d["by_target"] = st.by_target;
            for (const auto& [hash, entry] : st.by_fingerprint)
              fingerprints[py::str(hash)] = py::dict(py::arg("records") = entry.first, py::arg("text") = entry.second);
            d["by_fingerprint"] = fingerprints;
            return d;
          },
          "Counts by kind, target and machine fingerprint, and the file's size in bytes.")
      .def(
          "records",
          [](CostDatabase& db) {
            py::list out;
            for (const CostRecord& r : db.List()) out.append(RecordToDict(r));
            return out;
          },
          "Every record as a dict (cost and spread in seconds; cost inf when invalid), oldest first.")
      .def("__len__", [](CostDatabase& db) { return db.Stats().records; })
      .def("clear", &CostDatabase::Clear, "Removes every record; returns how many.")
      .def("export", &CostDatabase::Export, py::arg("path"),
           "Writes the records to `path` as JSON lines; returns how many.")
      .def("import_", &CostDatabase::Import, py::arg("path"),
           "Adds the records of a file export() wrote (existing ones kept); returns how many were new.")
      .def("__repr__", [](CostDatabase& db) { return "CostDatabase('" + db.path() + "')"; });
  m.def(
      "machine_fingerprint",
      [](const std::vector<std::string>& targets) {
        std::vector<Target> ts;
        for (const std::string& t : targets) ts.push_back(Target::Parse(t));
        return MachineFingerprint(ts);
      },
      py::arg("targets"),
      "The text costs measured for `targets` here are stored under (CPU, ISA, threads, backend versions).");
  m.def("runner_fingerprint", &RunnerFingerprint, py::arg("targets"),
        "What measuring a saved program for `targets` (';'-separated text) depends on where it "
        "runs (a Dask worker must match the driver's).");
  m.def("fingerprint_hash", &FingerprintHash, py::arg("text"),
        "The short hash of a fingerprint's text (what records store).");
}

}  // namespace tessera::python
