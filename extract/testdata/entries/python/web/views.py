def about():
    return "about"


def article(request, year):
    return year


class ArticleView:
    @classmethod
    def as_view(cls):
        return cls
