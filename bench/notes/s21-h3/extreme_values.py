"""Ad-hoc: the maintenance property with extreme values in the fact domain (large/negative ints, floats)."""
import os, sys
sys.path.insert(0, "tests")
from hypothesis import given, settings, HealthCheck, strategies as st, note
import strategies
EXTREME = (("int", 0), ("int", 1), ("int", 2**62), ("int", -2**63), ("int", 2**63 - 1), ("float", -0.0),
           ("int", 2**53 + 1), ("float", 2.0**53), ("int", -1), ("float", 1e300), ("string", "a"), ("float", -2.5),
           ("int", 3))
strategies.DOMAIN = EXTREME
strategies.CONSTANTS = EXTREME[:6]
strategies.values = st.sampled_from(strategies.CONSTANTS)
strategies.constants = strategies.values.map(strategies.constant)
from test_maintenance import assert_updates_equal_rematerialisation
from test_differential import engine_materialise, nonempty, with_facts
from reference import naive_materialise

N = int(os.environ.get("N", "300"))
ALG = os.environ.get("ALG")

@settings(max_examples=N, deadline=None, suppress_health_check=list(HealthCheck))
@given(strategies.programs_facts_and_updates(), st.sampled_from(["dred", "dredc", "counting", "fbf", "bf", "auto", "remat"]))
def run(case, algorithm):
    program, facts, batches = case
    note(str(with_facts(program, facts)))
    assert nonempty(engine_materialise(program, facts, "local")) == nonempty(naive_materialise(program, facts))
    assert_updates_equal_rematerialisation(program, facts, batches, algorithm=ALG or algorithm)

run()
print("ok")
