"""Issue 36: the server judges what the worker observed. Each log chunk says which re-run printed it,
each append's line arrival times are kept (VerificationArrivals), and the job keeps the worker's
hardware and what the verification established (checks); a new outcome, "timing only", for
benchmarks whose quality no evaluator measured."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('verify', '0003_outcome_cannot_compare'),
    ]

    operations = [
        migrations.AddField(
            model_name='verificationjob',
            name='checks',
            field=models.JSONField(blank=True, default=list, help_text='What the verification established (verify.reproduce.established)'),
        ),
        migrations.AddField(
            model_name='verificationjob',
            name='worker_hardware',
            field=models.JSONField(blank=True, default=dict, help_text='What the worker runs on (verify.hardware.describe_worker)'),
        ),
        migrations.AddField(
            model_name='verificationlogchunk',
            name='run',
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name='verificationjob',
            name='outcome',
            field=models.CharField(blank=True, choices=[('reproduced', 'Reproduced'), ('timing_only', 'Timing only'), ('not_reproduced', 'Not reproduced'), ('cannot_compare', 'Cannot compare'), ('failed', 'Failed'), ('timed_out', 'Timed out'), ('out_of_memory', 'Out of memory'), ('sandbox_violation', 'Sandbox violation'), ('worker_lost', 'Worker lost')], max_length=24),
        ),
        migrations.AlterField(
            model_name='verificationjob',
            name='reruns',
            field=models.JSONField(blank=True, default=list, help_text='One entry per re-run, as the server judged it (verify.reproduce.Rerun)'),
        ),
        migrations.CreateModel(
            name='VerificationArrivals',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('run', models.PositiveSmallIntegerField()),
                ('points', models.JSONField()),
                ('job', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='arrivals', to='verify.verificationjob')),
            ],
            options={
                'indexes': [models.Index(fields=['job', 'run'], name='verify_arrivals_run')],
            },
        ),
    ]
