// srun --gpu-bind's map_gpu:, mask_gpu:, closest and single:N, as Slurm
// 22.05's gres plugin applies them to one task (src/common/gres.c,
// _get_usable_gres): which of the step's GPUs on this node the task sees.
//
// GPU ids in a map or mask are the node's GPU indices (Slurm's global ids:
// Skiff's CUDA_VISIBLE_DEVICES names them so), ANDed with what the step
// holds there. A map or mask that leaves a task none binds it to the step's
// first GPU on the node, as Slurm does ("Binding to the first device in the
// allocation instead"). closest binds a task to the GPUs that share its CPUs'
// NUMA node; Skiff's nodes report no GPU-to-CPU affinity, which Slurm reads
// as every GPU being close to every CPU, so closest is all of the step's
// GPUs there, and single:N the ((local id / N) mod count)-th of them.
//
// Pure; thread-safe.
#ifndef SKIFF_NODED_STEPS_GPU_BIND_H_
#define SKIFF_NODED_STEPS_GPU_BIND_H_

#include <string>
#include <vector>

namespace skiff::noded {

// The GPUs (node indices, in order) task `local_id` sees under `bind` (Slurm's
// text after "verbose,": "map_gpu:0*2,1", "mask_gpu:0x3", "closest",
// "single:2"), of `step_gpus` (the step's on this node, ascending). An empty
// `bind`, or one of another kind, leaves `step_gpus`.
std::vector<int> BoundGpus(const std::string& bind, const std::vector<int>& step_gpus,
                           int local_id);

// Whether `bind` is one BoundGpus applies (map_gpu:, mask_gpu:, closest,
// single:N); none and per_task:N are the step's gpus_per_task instead.
bool IsTaskGpuBind(const std::string& bind);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_STEPS_GPU_BIND_H_
