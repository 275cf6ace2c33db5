a = 1
/* abc
