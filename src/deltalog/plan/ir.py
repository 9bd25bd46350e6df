"""The relational-algebra IR that algorithms emit and backends execute.

Plans name their columns (rule variables, or ``c0..ck`` for head tuples) and never
mention rules, strata or deltas: a stored relation is read through a generation window
(rows inserted at generations ``since <= g < until``), which is all the algorithm layer
needs to express "old", "delta" and "full" versions of a relation.

>>> scan = Scan("edge", (Col("X"), Col("Y")))
>>> plan = Project(Filter(scan, Compare("!=", Col("X"), Col("Y"))), (("c0", Col("Y")), ("c1", Col("X"))))
>>> plan.columns
('c0', 'c1')
>>> print(plan)
Project[c0=Y, c1=X]
  Filter[X != Y]
    Scan edge(X, Y) gen[0:)
"""

from deltalog.plan.algebra import (Aggregate, AntiJoin, Bind, Difference, Distinct, Filter, Join, Node, Project,
                                   Scan, SemiJoin, Union_, Values)
from deltalog.plan.expressions import Arith, Col, Compare, Expr, Func, Lit, Term
from deltalog.plan.witnessed import Witnessed
from deltalog.plan.closure_nodes import (ClosureDifference, ComponentDifference, ComponentPairs, Connects,
                                         GraphDifference, Reaches, TransitiveClosure)
from deltalog.syntax.ast import Constant   # the values of Lit and Values rows

__all__ = ["Aggregate", "AntiJoin", "Arith", "Bind", "Col", "Compare", "Difference", "Distinct", "Expr", "Filter",
           "Func", "Join", "Lit", "Node", "Project", "Scan", "SemiJoin", "Term", "Union_", "Values", "Witnessed",
           "ClosureDifference", "ComponentDifference", "ComponentPairs", "Connects", "GraphDifference", "Reaches",
           "TransitiveClosure", "Constant"]
