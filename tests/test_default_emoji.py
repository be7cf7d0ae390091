"""The emoji a person who never chose one is offered: not the same for everyone, and not
one already taken at the table they join."""

from __future__ import annotations

import re

from conftest import start_practice
from helpers.lobby import join, new_table


def offered(html: str) -> str:
    """The emoji the form has ticked."""
    return re.search(r'name="emoji" value="([^"]+)" checked', html).group(1)


def test_friends_joining_a_table_are_each_offered_an_emoji_not_taken_there(app):
    hana = app.test_client()
    hosts = offered(hana.get("/new").get_data(as_text=True))
    code = new_table(hana, humans=4, name="Hana", emoji=hosts)
    taken = [hosts]
    for name in ("Ann", "Bo", "Cy"):
        friend = app.test_client()  # a new browser, from the invitation's link
        mine = offered(friend.get(f"/j/{code}").get_data(as_text=True))
        assert mine not in taken, (name, mine, taken)
        assert join(friend, code, name, emoji=mine).status_code == 303
        taken.append(mine)
    assert len(set(taken)) == 4


def test_new_people_are_not_all_offered_the_same_emoji(app):
    defaults = set()
    for _ in range(6):
        person = app.test_client()
        start_practice(person)  # a player id of its own
        defaults.add(offered(person.get("/new").get_data(as_text=True)))
    assert len(defaults) > 1
