"""Chinese: what accepts, what refuses, and what vetoes either."""

from __future__ import annotations

from continual.replies.phrases.shared import DU, FP, NA, OS, ST, WF, Language

_VERBS = (
    "修改|修复|修正|改正|调整|更新|替换|删除|删掉|去掉|移除|挪|移动|重命名|改名|提取|抽取|抽出|拆分"
    "|简化|换成|改成|改为|改用|用上|加上|添加|增加|补上|补充|封装|内联|重构|优化|处理|采纳|实现|整理"
)
# A verb right after "不" / "没" / "别" is refused, not done: "不改了" keeps the code as it is.
_NOT = r"(?<![不没未别])"
EDIT = (
    rf"已(?:经)?(?:{_VERBS}|改)"
    rf"|{_NOT}(?:{_VERBS}|改|加|删|换)(?:好|完|掉|过|进去)?了"
    rf"|{_NOT}(?:改|换|挪|移|移动|提取|抽取|抽|重命名|拆分|封装|放)(?:成|为|到|进)(?=[^，。！？,.!?]{{1,24}}了)"
    r"|(?:按|照|按照|根据)(?:你|您)?的?(?:建议|写法|意见|方案|思路|说的)[^，。,.]{0,8}"
    r"(?:改|修改|调整|处理|更新)"
)
# "已经在中间件里处理了" says where it was already handled: a duplicate, not an acceptance.
NOT_HERE = r"已(?:经)?在(?!最新|新的|本次|这次|这个提交)"

LANGUAGE = Language(
    code="zh",
    deferral=(
        r"以后|之后|稍后|后续|另一个\s?pr|别的\s?pr|另外的?\s?pr|单独的?\s?pr|下一个\s?pr|下个\s?pr|新的?\s?pr|另开|(?:开|建|提)了?(?:一个)?\s?issue|回头|后面再|下个版本|下一版"
    ),
    arguments="chongfu",
    cjk=True,
    accept_anywhere=(("yixiufu", "已 好了 搞定 了 按 照 根据", r"(?:改|修)好了|搞定|" + EDIT),),
    dismiss=(
        (
            "guyi",
            NA,
            "故意 有意 预期 设计如此",
            r"故意的|是故意|有意为之|有意的|预期行为|符合预期|设计如此",
        ),
        (
            "wubao",
            FP,
            "不是 误报 不会 不可能",
            r"不是\s?(?:bug|问题|错误)|误报|不会出现|不可能出现|不会发生|不可能发生",
        ),
        ("baochi", WF, "保持 不改 维持 就这样", r"保持现状|保持不变|不改了|维持原样|就这样吧"),
        ("chaochu-fanwei", OS, "范围", r"超出.{0,12}范围|不在.{0,12}范围"),
        ("fengge", ST, "风格 个人 见仁见智", r"风格问题|个人喜好|个人偏好|见仁见智"),
        (
            "chongfu",
            DU,
            "在 上游 上层 调用方 调用者 外层 前面 之前 别处 其他地方 中间件 框架",
            r"已(?:经)?在.{1,20}(?:处理|校验|检查)"
            r"|(?:上游|上层|调用方|调用者|外层|前面|之前|别处|其他地方|中间件|框架)(?:已(?:经)?|都)"
            r"(?:做了?|有)?(?:校验|检查|处理|验证|过滤|判断)",
        ),
    ),
    veto_anywhere=(
        r"(?<!不)可能|也许|或许|大概|我觉得|稍后|之后|以后|后续|下次|回头|再改|再处理|但是|不过|部分|暂时"
    ),
    veto_accept=(
        r"没|未|不|还|吗|待|要|需|冲突|合并|分支|描述|标题|下个|下一个|迭代|另一个|别的|其他|评论|"
        + NOT_HERE
    ),
    veto_dismiss_before=r"不是|并非|并不|不|没|非",
)
