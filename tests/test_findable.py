"""Circles are found where people look: the top bar of every page of a signed-in person
links to them, and the profile lists the person's circles, or says what a circle is and
how to make one."""

from __future__ import annotations

import re

from helpers.circles import make, section, signed_in, text

TOP_BAR = re.compile(r'<nav id="account-link".*?</nav>', re.S)


def test_every_page_of_a_signed_in_person_links_to_circles(app, client):
    ann = signed_in(app, "ann@example.com", "Ann")
    for path in ("/", "/me", "/games", "/new", "/t", "/c"):
        page = ann.get(path)
        assert page.status_code == 200, path
        assert '<a href="/c">Circles</a>' in TOP_BAR.search(page.get_data(as_text=True)).group(0), path
    assert 'href="/c"' not in TOP_BAR.search(client.get("/").get_data(as_text=True)).group(0)  # not signed in


def test_the_profile_lists_the_circles_or_says_how_to_make_one(app, client):
    ann = signed_in(app, "ann@example.com", "Ann")
    none = ann.get("/me").get_data(as_text=True)
    words = section(none, "circles")
    assert "A circle is a home for friends who play together" in words and "Make a circle" in words
    assert 'href="/c/new"' in re.search(r'<section id="circles".*?</section>', none, re.S).group(0)
    slug = make(ann, "Friday Spades")
    mine = ann.get("/me").get_data(as_text=True)
    assert f'<a href="/c/{slug}">Friday Spades</a> <span class="muted">(yours)</span>' in mine
    assert "Make another circle" in section(mine, "circles")
    assert "Sign in to make one" in text(section(client.get("/me").get_data(as_text=True), "circles"))
