"""backends/local"""
