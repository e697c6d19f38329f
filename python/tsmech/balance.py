"""Reactions and the energy balance of a run (TSMechSetBalance(), src/ts/balance.c): the force and
moment each constraint exerts and the energy terms, from the step's own discrete quantities."""
import numpy as np

from ._lib import Bool, Real, call, handle

#: the terms of the energy balance (TSMechEnergyNames): kinetic, stored, external_work,
#: prescribed_work, damping, numerical, ratio
ENERGY_NAMES = ("kinetic", "stored", "external_work", "prescribed_work", "damping", "numerical", "ratio")


def set_balance(ts, reactions=True, energy=True):
    """Records the reactions and/or the energy balance of ts's system at every step (before
    tsmech.Output(): they become /monitor/reaction/NAME/force, /moment and /monitor/balance/NAME)."""
    call("TSMechSetBalance", handle(ts), Bool(bool(reactions)), Bool(bool(energy)))


def reaction(ts, name):
    """The force and moment (numpy arrays of 3) the constraint name exerts at ts's current step."""
    force, moment = (Real * 3)(), (Real * 3)()
    call("TSMechGetReaction", handle(ts), name.encode(), force, moment)
    return np.array(force[:]), np.array(moment[:])


def energy_balance(ts):
    """The energy balance at ts's current step: {term: value} of ENERGY_NAMES."""
    e = (Real * len(ENERGY_NAMES))()
    call("TSMechGetEnergyBalance", handle(ts), e)
    return dict(zip(ENERGY_NAMES, e[:]))
