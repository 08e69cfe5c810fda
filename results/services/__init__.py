"""The only writers of the results database, one module per seam: rounds, versions, the
training and inference imports, scaling-factor decisions."""
