import os


class Base:
    def greet(self, who):
        return self.format(who)

    def format(self, who):
        return os.path.join("hello", who)


def helper():
    return Base()
