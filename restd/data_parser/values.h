// The value shapes Slurm's data_parser writes (v0.0.41 to v0.0.44 share
// them): numbers that may be unset or infinite ("*_no_val_struct"), process
// exit codes, TRES lists and strings. Shared by restd's slurm/ and slurmdb/
// paths. Written as client::Json, restd's one JSON writer.
//
// Pure; thread-safe.
#ifndef SKIFF_RESTD_DATA_PARSER_VALUES_H_
#define SKIFF_RESTD_DATA_PARSER_VALUES_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "client/json_writer.h"

namespace skiff::restd {

using Json = client::Json;

// {"set": true, "infinite": false, "number": n}
Json Number(int64_t n);
// {"set": false, "infinite": false, "number": 0}: Slurm's NO_VAL.
Json NoNumber();
// {"set": false, "infinite": true, "number": 0}: Slurm's INFINITE.
Json Infinite();
// A unix time: set when non-zero.
Json Time(int64_t unix_seconds);
// A time limit in minutes from `seconds`: -1 is INFINITE; 0 is unset.
Json Minutes(int64_t seconds);
// {"set": true, "infinite": false, "number": x} for a float64_no_val_struct.
Json Float(double x);

// process_exit_code_verbose: {"status": [...], "return_code": {...},
// "signal": {"id": {...}, "name": "..."}}; status is "SUCCESS", "ERROR" or
// "SIGNALED" (and "PENDING" before the process ran).
Json ExitCode(bool ended, int return_code, int signal);
// "SIGKILL" for 9; "" for 0.
std::string SignalName(int signal);

// Slurm's TRES list: [{"type": "cpu", "name": "", "id": 1, "count": n}, ...].
// `counts` by Slurm's TRES names: "cpu", "mem" (MiB), "node", "billing",
// "gres/gpu", "gres/gpu:a100".
Json TresList(const std::map<std::string, int64_t>& counts);
// The same as Slurm's text: "cpu=4,mem=8G,node=1,billing=4,gres/gpu=2".
std::string TresString(const std::map<std::string, int64_t>& counts);
// Slurm's fixed TRES ids: cpu 1, mem 2, energy 3, node 4, billing 5, fs/disk
// 6, vmem 7, pages 8; gres/gpu 1001 and typed GPUs after it in name order.
int TresId(const std::string& type_and_name);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_DATA_PARSER_VALUES_H_
