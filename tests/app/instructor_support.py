"""Helpers for the instructor side's tests: make an account, sign a client in, read a form's CSRF token."""

from __future__ import annotations

import re

import httpx
from fastapi import FastAPI

from app.instructor.accounts import add_instructor
from tests.app.app_support import TestClient

EMAIL = "ada@example.edu"
PASSWORD = "correct horse battery staple"
CSRF_INPUT = re.compile(r'name="(csrf[a-z_]*)" value="([^"]+)"')


def make_instructor(app: FastAPI, email: str = EMAIL, password: str = PASSWORD) -> None:
    with app.state.paperlab.session_factory() as session:
        add_instructor(session=session, email=email, password=password)


def csrf_from(html: str) -> tuple[str, str]:
    match = CSRF_INPUT.search(html)
    assert match, "no csrf field in the form"
    return match.group(1), match.group(2)


def sign_in(client: TestClient, email: str = EMAIL, password: str = PASSWORD, **extra: str) -> httpx.Response:
    form = client.get("/instructor/login")
    name, token = csrf_from(form.text)
    response: httpx.Response = client.post(
        "/instructor/login",
        data={name: token, "email": email, "password": password, **extra},
        follow_redirects=False,
    )
    return response
