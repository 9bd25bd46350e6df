"""The Spark backend: deltalog plans executed as PySpark DataFrame operations (``pip install deltalog[spark]``)."""

import warnings

# PySpark 4.3 warns on every pandas UDF under pandas 3; the UDFs here return object columns, which work
warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
