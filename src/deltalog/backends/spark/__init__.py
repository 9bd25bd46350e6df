"""backends/spark"""
