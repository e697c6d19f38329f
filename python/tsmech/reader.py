"""Reading tsmech's HDF5 output (and checkpoints) into numpy arrays; needs h5py only (no PETSc
call, so it also works in a post-processing script that never initializes MPI)."""
import numpy as np


def _value(x):
    """An HDF5 attribute as Python: fixed-length strings decoded, one-element arrays unwrapped."""
    if isinstance(x, bytes):
        return x.decode(errors="replace").rstrip("\0")
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "S":
            x = np.char.decode(x, errors="replace")
        if x.size == 1:
            return x.reshape(()).item()
        return x
    if isinstance(x, np.generic):
        return x.item()
    return x


class Run:
    """A tsmech output file read into memory.

    attrs     the run's metadata (model, its parameters, ts_type, dt, nranks, ...)
    monitor   {name: array [steps+1]}: step, time, dt, kinetic, potential, energy, snes_its,
              ksp_its and the model's invariants, one entry per recorded step
    reactions {constraint: {"force": [steps+1, 3], "moment": [steps+1, 3]}} (-monitor_reactions)
    probes    {probe: {"u", "v": [steps+1, 3], "stress": [steps+1, 6], "von_mises": [steps+1]}} (-probe)
    balance   {term: [steps+1]}: kinetic, stored, external_work, prescribed_work, damping,
              numerical, ratio (-monitor_energy_balance)
    fields    {name: array}: q, v [nsnap, ...] (the shapes of the README), time, step [nsnap]
    mesh      {vertices, tetrahedra} for the solid, else {}
    parameters  {parameter: value} of the model
    checkpoint  {q, v, ... and attrs} when the file is a checkpoint, else None

    run.time, run.energy, run.kinetic, run.potential, run.step (the /monitor series) and run.q,
    run.v (the snapshots) are shortcuts.
    """

    def __init__(self, path):
        import h5py  # only the reader needs it

        self.path = str(path)
        with h5py.File(self.path, "r") as f:
            self.attrs = {k: _value(v) for k, v in f.attrs.items()}
            m = f["monitor"] if "monitor" in f else {}
            self.monitor = {k: d[()] for k, d in m.items() if hasattr(d, "shape")}
            # the per-step records in groups: /monitor/reaction/NAME/force, /monitor/probe/NAME/u, /monitor/balance/NAME
            self.reactions = {n: {k: d[()] for k, d in g.items()} for n, g in m["reaction"].items()} if "reaction" in m else {}
            self.probes = {n: {k: d[()] for k, d in g.items()} for n, g in m["probe"].items()} if "probe" in m else {}
            self.balance = {k: d[()] for k, d in m["balance"].items()} if "balance" in m else {}
            self.fields = {k: d[()] for k, d in f["fields"].items()} if "fields" in f else {}
            self.mesh = {k: d[()] for k, d in f["mesh"].items()} if "mesh" in f else {}
            self.checkpoint = None
            if "checkpoint" in f:
                g = f["checkpoint"]
                self.checkpoint = {k: d[()] for k, d in g.items() if hasattr(d, "shape")}
                self.checkpoint["attrs"] = {k: _value(v) for k, v in g.attrs.items()}
                if "model_parameters" in g:
                    self.checkpoint["parameters"] = {k: _value(v) for k, v in g["model_parameters"].attrs.items()}
        names = self.attrs.get("model_parameters", "")
        if isinstance(names, str):
            names = [n for n in names.replace(",", " ").split() if n]
        self.parameters = {n: self.attrs[n] for n in np.atleast_1d(names) if n in self.attrs}

    def __getattr__(self, name):
        if name in ("time", "energy", "kinetic", "potential", "step", "dt", "snes_its", "ksp_its"):
            if name in self.monitor:
                return self.monitor[name]
        if name in ("q", "v") and name in self.fields:
            return self.fields[name]
        raise AttributeError(f"{type(self).__name__} of {self.path} has no {name}")

    @property
    def model(self):
        return self.attrs.get("model") or (self.checkpoint or {}).get("attrs", {}).get("model")

    def __repr__(self):
        return f"<tsmech.Run {self.path}: model {self.model}, {len(self.monitor.get('step', []))} records, {len(self.fields.get('time', []))} snapshots>"


def read(path):
    """Reads a tsmech HDF5 output file (or checkpoint) into a Run of numpy arrays."""
    return Run(path)
