"""Korean: what accepts, what refuses, and what vetoes either."""

from __future__ import annotations

from continual.replies.phrases.shared import DU, FP, NA, OS, ST, WF, Language

_NOUNS = (
    "수정|반영|변경|적용|처리|업데이트|추가|삭제|제거|이동|분리|추출|통합|정리|리팩토링|리팩터링|개선"
    "|교체|대체|단순화|상수화|함수화|변환|정렬|보완|구현|작성|치환|문서화"
)
_VERBS = "바꿨|바꾸었|옮겼|옮기었|뺐|고쳤|넣었|없앴|지웠|나눴|합쳤|빼냈|바꿔|옮겨"
EDIT = (
    rf"(?:{_NOUNS})\s?(?:을|를)?\s?(?:했|하였|해\s?뒀|해\s?두었)(?:습니다|어요|어|음|다)?"
    rf"|(?:{_NOUNS})\s?완료"
    rf"|(?:{_VERBS})(?:습니다|어요|어|음|다|놨|두었)"
)

LANGUAGE = Language(
    code="ko",
    deferral=(
        r"나중에|다음\s?pr|별도(?:의)?\s?pr|별도로|이후에|추후|후속|다른\s?pr|이슈(?:를|로)?\s?(?:만들|생성|등록|열)|다음에"
    ),
    arguments="imi",
    cjk=True,
    accept_anywhere=(
        (
            "sujeong",
            "했 였 완료 뒀 두었 바꿨 바꾸었 옮겼 옮기었 뺐 고쳤 넣었 없앴 지웠 나눴 합쳤 빼냈 바꿔 옮겨",
            EDIT,
        ),
    ),
    dismiss=(
        ("uido", NA, "의도 설계", r"의도된|의도한|의도적|의도대로|설계상"),
        (
            "otam",
            FP,
            "버그 오탐 않",
            r"버그가 아(?:니|닙)|버그 아(?:니|닙)|오탐|발생하지 않|일어나지 않",
        ),
        ("geudaero", WF, "그대로 않겠", r"그대로 두|그대로 유지|(?:수정|변경)하지 않겠"),
        ("beomwi", OS, "범위", r"범위를 벗어|범위 밖|범위 외"),
        ("chwihyang", ST, "취향 스타일", r"취향 문제|스타일 문제|개인 취향"),
        ("imi", DU, "이미", r"이미 .{0,20}(?:처리|확인)(?:되|하)"),
    ),
    veto_anywhere=r"아마|혹시|나중에|추후|다음\s?pr|다음에|예정|하지만|그런데|다만|일부|검토",
    veto_accept=(
        r"아직|않|안\s|못|나요|까요|겠|충돌|머지|병합|브랜치|리베이스|(?<![가-힣])제\s|댓글"
    ),
    veto_dismiss_after=r"아니|아닙|않",
    question=r"(?:나요|까요|습니까)[.。]?$",
)
