from .base import Base, helper
from . import base as b


class Impl(Base):
    @staticmethod
    def make():
        return Impl()

    def greet(self, who):
        helper()
        return b.helper()


def run():
    obj = Impl.make()
    obj.greet("x")
    print(len("x"))
    undefined_thing()
