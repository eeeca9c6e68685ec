"""SPARQL text: the one home of reading, binding and guarding query text.

- :mod:`kg.sparql.lexer`: tokens of SPARQL text (comments, strings and IRIs skipped
  correctly), query form and keyword detection;
- :mod:`kg.sparql.binding`: parameter values bound into a query (one semantics);
- :mod:`kg.sparql.guard`: what a query may not do here (SERVICE, LOAD, remote FROM);
- :mod:`kg.sparql.updates`: the SPARQL Update text kg writes itself (drop, then insert data).
"""
