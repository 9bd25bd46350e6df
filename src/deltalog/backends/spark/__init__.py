"""The Spark backend: deltalog plans executed as PySpark DataFrame operations (``pip install deltalog[spark]``)."""
