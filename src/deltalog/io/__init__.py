"""Reading and writing fact files (TSV/.facts, CSV, Parquet, RDF) as decoded Polars tables with columns c0..ck."""

from deltalog.io.rdf import RdfTables, read_rdf
from deltalog.io.readers import read_facts_dir, read_table
from deltalog.io.writers import write_relations, write_table

__all__ = ["RdfTables", "read_facts_dir", "read_rdf", "read_table", "write_relations", "write_table"]
