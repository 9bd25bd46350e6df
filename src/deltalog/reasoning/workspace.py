"""The relations an update works with besides the user's, and every name they have, in one place.

Two kinds:

- **scratch relations** live for one update (001's sets N_D, R, Δ_A; FBF's C, P, Y; Counting's
  runs): a :class:`Workspace` creates them by :class:`Role` and predicate, hands out their names,
  tells them from user relations by membership (``name in workspace``) and drops them at the end;
  a role's facts may instead be a view of a kept relation (``stage_view``: E⁺ and E⁻ of a derived
  predicate, read off its explicit store), which is neither copied nor dropped;
- **kept relations** outlive an update: the explicit facts of a derived predicate (E of 001, see
  :func:`explicit_relation`) and the counters of DRed^c and Counting (:class:`Counters`).

No other file spells a relation name; the naming below only has to stay clear of predicate
names (every pattern holds a character no predicate has).
"""

from __future__ import annotations

from enum import Enum
from typing import Iterator, Mapping

from deltalog.plan.query import View

EXPLICIT_SUFFIX = "#explicit"


def explicit_relation(predicate: str) -> str:
    """Where the explicit facts of a predicate that rules also derive are kept (E of 001)."""
    return predicate + EXPLICIT_SUFFIX


class Counters(Enum):
    """Per-predicate counter relations kept between consecutive updates by the same algorithm."""

    NONRECURSIVE = "#nonrecursive"   # DRed^c (003 section 4.2): nonrecursive derivations per fact
    TRACE = "#counting"              # Counting (001 Algorithm 2): rule instances per fact and iteration

    def relation(self, predicate: str) -> str:
        return predicate + self.value

    __hash__ = object.__hash__   # members are singletons: Enum's hash of the name is a Python call


class Role(Enum):
    """What a scratch relation holds for one predicate; the value is its name pattern."""

    RAW_ADDED = "+raw:{}"            # E⁺ as given
    RAW_DELETED = "-raw:{}"          # E⁻ as given
    ADDED = "+{}"                    # E⁺ \ E              (001 Algorithm 4, line 39)
    DELETED = "-{}"                  # (E⁻ ∩ E) \ E⁺
    LOST_DERIVATION = "N:{}"         # N_D: facts that lost a derivation (overdeletion candidates)
    REDERIVED = "R:{}"               # R: overdeleted facts rederived
    INSERTION_DELTA = "ΔA:{}"        # N_A / Δ_A: insertion rounds
    CHECKED = "C:{}"                 # FBF (001 Algorithm 5): C, checked facts
    PROVED = "P:{}"                  # P, proved facts
    DELAYED = "Y:{}"                 # Y, delayed facts
    CANDIDATES = "K:{}"              # one overdeletion round's unproved candidates
    COUNT_CHANGES = "#delta:{}"      # signed counter changes, summed per fact
    STAGED_COUNTS = "#counts:{}"     # new counter rows before they replace the stored ones
    TOUCHED = "#touched:{}"          # facts whose counters changed (Counting)
    TRACE_FACTS = "#Ib:{}"           # I while the old trace is counted (001 Algorithm 2)
    OLD_RUN = "#Io:{}"               # I_o, I_n: the old and the new run (001 Algorithm 3)
    NEW_RUN = "#In:{}"
    ONLY_OLD = "#Ion:{}"             # I_o \ I_n and I_n \ I_o
    ONLY_NEW = "#Ino:{}"
    OLD_STARTS = "#Yo:{}"            # Y_o, Y_n: (Δ_x ∩ I_y) \ Δ_y, where (69) starts
    NEW_STARTS = "#Yn:{}"
    SET_ASIDE = "old:{}"             # a derived relation replaced by a rematerialisation

    def of(self, predicate: str) -> str:
        """The relation name for ``predicate``."""
        return self.value.format(predicate)

    __hash__ = object.__hash__   # a key of every scratch-relation lookup: see Counters


class Workspace:
    """The scratch relations of one update, by role and predicate."""

    def __init__(self, backend) -> None:
        self.backend = backend
        self._names: dict[tuple[Role, str], str] = {}
        self._views: dict[tuple[Role, str], View] = {}   # roles staged as views of kept relations
        self._by_role: dict[Role, set[str]] = {}   # predicates per role: "does a stratum have any?" in O(1)

    def __contains__(self, relation: str) -> bool:
        """Whether ``relation`` is one of this update's scratch relations (not a user relation)."""
        return relation in self._names.values()

    def __iter__(self):
        return iter(list(self._names.values()))

    def relation(self, role: Role, predicate: str, arity: int) -> str:
        """The scratch relation of ``role`` for ``predicate``, created empty on first use."""
        key = (role, predicate)
        if key not in self._names:
            name = role.of(predicate)
            self.backend.drop(relation=name)   # a leftover of the same name goes (a no-op if none):
            self.backend.create_relation(relation=name, arity=arity)   # one new relation, not two
            self._names[key] = name
            self._by_role.setdefault(role, set()).add(predicate)
        return self._names[key]

    def stage_view(self, role: Role, predicate: str, view: View) -> None:
        """The facts of ``role`` for ``predicate`` are the rows of ``view`` (of ``view.relation``, a kept relation
        the update does not change again), not a scratch relation's: nothing is copied, or dropped at the end."""
        self._views[role, predicate] = view
        self._by_role.setdefault(role, set()).add(predicate)

    def staged(self, role: Role, predicate: str) -> View | None:
        """Where the facts of ``role`` for ``predicate`` are (its scratch relation whole, or a view: ``stage_view``;
        the view names its relation), None if this update has none."""
        if (view := self._views.get((role, predicate))) is not None:
            return view
        name = self._names.get((role, predicate))
        return None if name is None else View(relation=name)

    def get(self, role: Role, predicate: str) -> str | None:
        """The relation if this update made one (e.g. ``ADDED`` exists iff the update adds facts of p)."""
        return self._names.get((role, predicate))

    def name_of(self, role: Role, predicate: str) -> str:
        """The relation of ``role`` for ``predicate``, which this update made (a predicate of ``predicates(role)``)."""
        return self._names[role, predicate]

    def has(self, role: Role, predicate: str) -> bool:
        return (role, predicate) in self._names

    def predicates(self, role: Role) -> list[str]:
        """The predicates that have a relation of ``role``, sorted."""
        return sorted(self._by_role.get(role, ()))

    def any_of(self, role: Role, predicates: frozenset[str]) -> bool:
        """Does one of ``predicates`` have a relation of ``role``?"""
        return not predicates.isdisjoint(self._by_role.get(role, ()))

    def set_aside(self, predicate: str) -> str:
        """Rename a user relation out of the way (kept until the update ends, then dropped)."""
        name = Role.SET_ASIDE.of(predicate)
        self.backend.rename(relation=predicate, to=name)
        self._names[Role.SET_ASIDE, predicate] = name
        self._by_role.setdefault(Role.SET_ASIDE, set()).add(predicate)
        return name

    def restore_set_aside(self) -> None:
        """After a failed rematerialisation: put the set-aside relations back."""
        for predicate in self.predicates(Role.SET_ASIDE):
            name = self._names.pop((Role.SET_ASIDE, predicate))
            self._by_role[Role.SET_ASIDE].discard(predicate)
            self.backend.drop(relation=predicate)
            self.backend.rename(relation=name, to=predicate)

    def drop_all(self) -> None:
        for name in self._names.values():
            self.backend.drop(relation=name)
        self._names.clear()
        self._views.clear()
        self._by_role.clear()


class OnDemand(Mapping[str, str]):
    """The scratch relations of one role for a stratum's predicates, each created at its first use
    (``[p]``); iterating shows only those made so far: a relation never made holds nothing. Why:
    maintaining a stratum of 15 predicates after a 1-fact deletion used to make 15 relations of
    each role and count every one per round; one or two of them ever receive a fact."""

    def __init__(self, workspace: Workspace, role: Role, arities: Mapping[str, int]) -> None:
        self.workspace, self.role, self.arities = workspace, role, arities

    def __getitem__(self, predicate: str) -> str:
        return self.workspace.relation(self.role, predicate, self.arities[predicate])

    def __iter__(self) -> Iterator[str]:
        return iter([p for p in self.arities if self.workspace.has(self.role, p)])

    def __len__(self) -> int:
        return sum(1 for _ in self)
