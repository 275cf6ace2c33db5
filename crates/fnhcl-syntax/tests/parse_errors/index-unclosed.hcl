a = x[
