# Cold start of the PyTorch path allsum replaces, for a side-by-side figure: from interpreter start to the first
# all_reduce done with one rank (init_process_group over a TCPStore + NCCL communicator + one float32 all-sum).
# Usage: python3 torch_cold_start.py   (the caller times the whole process; this prints its own phases too)
import os, time
t0 = time.time()
import torch, torch.distributed as dist
t_import = time.time()
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29511")
dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda:0"))
t_init = time.time()
x = torch.ones(1, dtype=torch.float32, device="cuda:0")
dist.all_reduce(x)
torch.cuda.synchronize()
t_done = time.time()
assert x.item() == 1.0
print(f"TORCH_COLD import_s={t_import - t0:.3f} init_s={t_init - t_import:.3f} first_allreduce_s={t_done - t_init:.3f} "
      f"in_process_total_s={t_done - t0:.3f}", flush=True)
dist.destroy_process_group()
