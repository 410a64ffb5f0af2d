from django.urls import include, path, re_path
from django.views.generic import TemplateView

from . import views
from .views import ArticleView

urlpatterns = [
    path("articles/<int:year>/", views.article),
    path("articles/", ArticleView.as_view()),
    re_path(r"^archive/(?P<year>[0-9]{4})/$", views.article),
    path("blog/", include("blog.urls")),
    path("about/", TemplateView.as_view(template_name="about.html")),
]
