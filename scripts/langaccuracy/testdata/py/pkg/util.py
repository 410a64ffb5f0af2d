def identity(x):
    return x


def twice(f, n):
    return f(f(n))
