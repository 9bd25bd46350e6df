"""Generalized hypertree decompositions of rule bodies (000 section 2, "Hypertree Decomposition").

A rule body is a hypergraph: its variables are the vertices and each positive atom is a hyperedge.
A decomposition is a tree whose nodes p carry a set of variables χ(p) (a *bag*) and a set of atoms
λ(p) whose variables cover χ(p); every atom's variables lie inside some bag, and the bags holding a
variable form a connected subtree. Its width is max |λ(p)|; a rule is *complex* (000: cyclic) when
no decomposition of width 1 exists. Evaluating a rule over a decomposition (Yannakakis: node
relations, semi-join passes, a join up the tree) touches O(m^width + output) rows instead of the
intermediate results of a left-deep join.

Bags come from an elimination ordering of the primal graph (two variables adjacent when an atom,
a negated atom or a comparison holds both): eliminating v makes {v} ∪ (its not yet eliminated
neighbours) a bag and joins those neighbours into a clique. Every tree decomposition can be refined
into one obtained this way with smaller or equal bags, and the edge-cover number of a bag only grows
with the bag, so the least width over all orderings is the generalized hypertree width. Small
bodies get the exact minimum by dynamic programming over the sets of eliminated variables (the
treewidth recurrence of Bodlaender et al., with a bag's cost its cover number), larger ones a greedy
ordering (analysis/elimination.py).

Negated atoms and comparisons are constraints: their variables are made adjacent, so some bag holds
all of them, and they are attached to the smallest such node (as are positive atoms outside λ, which
are applied there as semi-join filters: every atom is enforced in full at one node).

>>> triangle = decompose([{"X", "Y"}, {"Y", "Z"}, {"Z", "X"}])
>>> triangle.width, triangle.exact
(2, True)
>>> print(triangle)
width 2 (exact)
node 0 χ={X, Y, Z} λ=[0, 1] filters=[2]
>>> decompose([{"X", "Y"}, {"Y", "Z"}, {"Z", "W"}]).width
1
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from deltalog.analysis.elimination import bags_from_order, best_order, cover_function, min_fill_order, primal_graph


@dataclass(frozen=True)
class TreeNode:
    """One node p of a decomposition: χ(p), λ(p) (atom positions) and the atoms enforced here."""

    chi: frozenset[str]
    cover: tuple[int, ...]                  # λ(p): the atoms joined to build the node relation
    filters: tuple[int, ...] = ()           # atoms with var ⊆ χ(p), not in any λ: semi-join filters
    constraints: tuple[int, ...] = ()       # constraint positions (negations, comparisons) attached here
    children: tuple[int, ...] = ()


@dataclass(frozen=True)
class Decomposition:
    """A rooted decomposition; ``exact`` when ``width`` is proven minimal."""

    nodes: tuple[TreeNode, ...]
    root: int
    width: int
    exact: bool

    @property
    def complex(self) -> bool:
        """000's complex (cyclic) rule: hypertree width above 1."""
        return self.width > 1

    def lines(self, atom_text: Sequence[str] | None = None, constraint_text: Sequence[str] | None = None
              ) -> list[str]:
        def atoms(positions: Iterable[int], text: Sequence[str] | None) -> str:
            return ", ".join(text[i] if text else str(i) for i in positions)

        out = [f"width {self.width} ({'exact' if self.exact else 'heuristic'})"]

        def visit(p: int, depth: int) -> None:
            node = self.nodes[p]
            line = f"{'  ' * depth}node {p} χ={{{', '.join(sorted(node.chi))}}} λ=[{atoms(node.cover, atom_text)}]"
            if node.filters:
                line += f" filters=[{atoms(node.filters, atom_text)}]"
            if node.constraints:
                line += f" constraints=[{atoms(node.constraints, constraint_text)}]"
            out.append(line)
            for child in node.children:
                visit(child, depth + 1)

        visit(self.root, 0)
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


def decompose(edges: Sequence[Iterable[str]], constraints: Sequence[Iterable[str]] = (),
              prefer: Iterable[str] = ()) -> Decomposition:
    """A decomposition of minimal (or, for large bodies, heuristically small) width.

    ``edges``: the variables of each positive atom; ``constraints``: the variables of each negated
    atom or comparison (each must lie within the atoms' variables); ``prefer``: variables the root
    should hold (the head's), so the last join projects early.
    """
    body = _Body.of(edges, constraints)
    order, exact = best_order(body.variables, body.adjacency, body.cover)
    return body.assemble(order, exact, frozenset(prefer))


def decompositions(edges: Sequence[Iterable[str]], constraints: Sequence[Iterable[str]] = (),
                   prefer: Iterable[str] = (), limit: int = 4) -> tuple[Decomposition, ...]:
    """``decompose``'s decomposition first, then up to ``limit - 1`` others of the same width with
    different bags, from the orderings that eliminate one variable first (then greedily): the
    data-blind search cannot tell which bags are small on the data, so the planner estimates each
    candidate on the current statistics and evaluates the cheapest (000 section 5 chooses
    decompositions with a cost model).

    >>> four_cycle = [{"S1", "C"}, {"S2", "C"}, {"S1", "P"}, {"S2", "P"}]
    >>> sorted(sorted(map(sorted, (n.chi for n in d.nodes))) for d in decompositions(four_cycle))
    [[['C', 'P', 'S1'], ['C', 'P', 'S2']], [['C', 'S1', 'S2'], ['P', 'S1', 'S2']]]
    """
    body = _Body.of(edges, constraints)
    order, exact = best_order(body.variables, body.adjacency, body.cover)
    best = body.assemble(order, exact, frozenset(prefer))
    found = [best]
    seen = {frozenset(n.chi for n in best.nodes)}
    for v in body.variables:
        if len(found) >= limit:
            break
        other = body.assemble(min_fill_order(body.variables, body.adjacency, body.cover, first=v), best.exact,
                              frozenset(prefer))
        key = frozenset(n.chi for n in other.nodes)
        if other.width == best.width and key not in seen:
            seen.add(key)
            found.append(other)
    return tuple(found)


@dataclass(frozen=True)
class _Body:
    """A body's hypergraph ready for elimination: its atoms' and constraints' variable sets, the
    variables, the primal graph and the bag-cover function."""

    hyperedges: list[frozenset[str]]
    extra: list[frozenset[str]]
    variables: list[str]
    adjacency: dict[str, frozenset[str]]
    cover: Callable[[frozenset[str]], tuple[int, tuple[int, ...]]]

    @classmethod
    def of(cls, edges: Sequence[Iterable[str]], constraints: Sequence[Iterable[str]]) -> "_Body":
        hyperedges = [frozenset(e) for e in edges]
        extra = [frozenset(c) for c in constraints]
        variables = sorted(frozenset().union(*hyperedges)) if hyperedges else []
        unknown = frozenset().union(*extra) - set(variables) if extra else frozenset()
        if unknown:
            raise ValueError(f"constraint variables {sorted(unknown)} occur in no atom")
        return cls(hyperedges, extra, variables, primal_graph(variables, hyperedges + extra),
                   cover_function(tuple(hyperedges)))

    def assemble(self, order: list[str], exact: bool, prefer: frozenset[str]) -> Decomposition:
        """The decomposition an elimination ordering gives."""
        bags, parents = bags_from_order(order, self.adjacency)
        return _assemble(bags, parents, self.hyperedges, self.extra, self.cover, exact, prefer)


# ---- the tree ------------------------------------------------------------------------------------

def _assemble(bags: list[frozenset[str]], parents: list[int | None], hyperedges: list[frozenset[str]],
              extra: list[frozenset[str]], cover, exact: bool, prefer: frozenset[str]) -> Decomposition:
    if not bags:   # no variables at all: one node holding every (ground) atom
        node = TreeNode(frozenset(), (), tuple(range(len(hyperedges))), tuple(range(len(extra))))
        return Decomposition((node,), 0, 0, exact)
    chis, edges = _contract(bags, _tree_edges(parents))
    root = max(range(len(chis)), key=lambda p: (len(chis[p] & prefer), -p))
    children = _orient(edges, root, len(chis))
    covers = [cover(chi)[1] for chi in chis]
    enforced = {i for p, c in enumerate(covers) for i in c if hyperedges[i] <= chis[p]}
    filters: list[list[int]] = [[] for _ in chis]
    for i, e in enumerate(hyperedges):
        if i not in enforced:
            filters[_smallest_home(e, chis)].append(i)
    attached: list[list[int]] = [[] for _ in chis]
    for j, c in enumerate(extra):
        attached[_smallest_home(c, chis)].append(j)
    nodes = tuple(TreeNode(chis[p], covers[p], tuple(filters[p]), tuple(attached[p]), tuple(children[p]))
                  for p in range(len(chis)))
    return Decomposition(nodes, root, max(len(c) for c in covers), exact)


def _tree_edges(parents: list[int | None]) -> list[tuple[int, int]]:
    """Parent links; separate components hang below the first root (they share no variable, so the
    connectedness condition holds)."""
    roots = [i for i, p in enumerate(parents) if p is None]
    return [(p, i) for i, p in enumerate(parents) if p is not None] + [(roots[0], r) for r in roots[1:]]


def _contract(bags: list[frozenset[str]], edges: list[tuple[int, int]]
              ) -> tuple[list[frozenset[str]], list[tuple[int, int]]]:
    """Merge every bag into a neighbour that contains it (the neighbour takes over its links):
    fewer nodes, same width, still a decomposition."""
    alive = dict(enumerate(bags))
    links = {frozenset(e) for e in edges}
    merged = True
    while merged:
        merged = False
        for link in sorted(links, key=sorted):
            a, b = sorted(link)
            small, big = (a, b) if alive[a] <= alive[b] else (b, a) if alive[b] <= alive[a] else (None, None)
            if small is None or big is None:
                continue
            links = {frozenset(big if x == small else x for x in other) for other in links if other != link}
            del alive[small]
            merged = True
            break
    ids = {old: new for new, old in enumerate(sorted(alive))}
    pairs = [sorted(link) for link in links]
    return [alive[old] for old in sorted(alive)], [(ids[a], ids[b]) for a, b in pairs]


def _orient(edges: list[tuple[int, int]], root: int, n: int) -> list[list[int]]:
    adjacent: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        adjacent[a].append(b)
        adjacent[b].append(a)
    children: list[list[int]] = [[] for _ in range(n)]
    stack, seen = [root], {root}
    while stack:
        p = stack.pop()
        for q in sorted(adjacent[p]):
            if q not in seen:
                seen.add(q)
                children[p].append(q)
                stack.append(q)
    return children


def _smallest_home(variables: frozenset[str], chis: list[frozenset[str]]) -> int:
    homes = [p for p, chi in enumerate(chis) if variables <= chi]
    if not homes:
        raise AssertionError(f"no bag holds {sorted(variables)}: not a decomposition")
    return min(homes, key=lambda p: (len(chis[p]), p))
